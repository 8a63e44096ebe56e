# Session 13 call 4 (2026-11-26), carry [".whl"], fresh machine, EMPTY kernel cache: the rest of the whole GPU suite on
# split-build kernels (calls 1-3's machine went back at its 30 minutes). In parallel: the torch extension; the conv
# tests' 21 kernels (--conv) and the tile table's eight bf16 token x channel kernels (for call 5's benchmark) with 16
# jobs. Then test_conv_gpu, test_conv_int8_gpu, test_sm80_on_sm90_gpu (its 72 SM80 kernels, single nvcc runs, built
# by its fixture), then `benchmark.py overhead` (the launch is now cudaLaunchKernelExC on a library kernel handle).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s13b
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site13 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site13:$PWD
L=/tmp/s13_c4; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/extension.log 2>&1
  echo "extension at ${SECONDS}s" >> $L/extension.log ) &
NAMES=$(python3 -c "
from cutlass_gemm.kernels import heuristics
cs = [c for c in heuristics.default_configs(90) if c.variant == 'scaled_bias' and c.out_dtype == 'bf16'
      and (c.scale_a, c.scale_b, c.activation) == ('token', 'channel', 'none')]
print(' '.join('--name ' + c.name for c in cs))")
python3 tools/generate_kernels.py --out /tmp/gen_c4 --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $L/kernels_tiles.log &
python3 tools/generate_kernels.py --out /tmp/gen_cv --conv --compile --jobs 16 \
  $(python3 tools/results/h100-2026-11-26/session11/full/kernels.py --conv) 2>&1 | grep -v "^nvcc:" > $L/kernels_conv.log
wait
echo "kernels at ${SECONDS}s: $(tail -n 1 $L/kernels_tiles.log); $(tail -n 1 $L/kernels_conv.log)"; tail -n 1 $L/extension.log
for f in test_conv_gpu test_conv_int8_gpu test_sm80_on_sm90_gpu; do
  left=$((560 - SECONDS)); [ $left -lt 40 ] && { echo "stop before $f"; break; }
  t0=$SECONDS
  timeout $left python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/$f.py > $L/$f.log 2>&1
  echo "$f rc=$? in $((SECONDS - t0))s: $(tail -n 1 $L/$f.log)"
done
left=$((585 - SECONDS))
[ $left -gt 40 ] && { timeout $left python3 tools/benchmark.py overhead --out $L > $L/overhead.log 2>&1; echo "overhead rc=$?"; grep -A14 us_per_call $L/overhead.json; }
tar czf $OUT/logs.tgz -C $L .
