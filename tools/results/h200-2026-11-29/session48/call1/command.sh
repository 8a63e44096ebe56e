# Session 48 call 1 (kind nvidia-h200), EMPTY kernel cache: the blockwise promotion mainloops as two loops and two
# policies (blockwise generator 10; kernels/cxx/blockwise_overlap.hpp, blockwise_int8.hpp). Builds the extension and the
# int8 kernels the GPU tests name (tests/test_blockint8_sm90_gpu.py, tests/test_pdl_blockwise_gpu.py print them; the
# activation kernels of tests/test_blockint8_gpu.py at 200 rows) and the per-token int8 GEMMs the probe compares
# against, runs the three int8 test files with JIT off, then the session 47 probe (s8_atom.py) at 129..383 rows with
# wide N, where the 256 x 128 per-atom tile makes more than 66 tiles but SELECTION_S8 keeps the 128 x 128 tile.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc48a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site48 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site48:$PWD
P=tools/results/h200-2026-11-29/session47/probe/s8_atom.py
export CG_PROBE_SHAPES=192x28672x4096,256x28672x4096,256x14336x4096,320x14336x4096,320x8192x8192,256x16384x8192
export CG_PROBE_CANDS=sm90_blockwise_s8_bf16_sfamn_t128x128x128_c2x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_s8_bf16_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_blockint8_sm90_gpu.py && python3 test_pdl_blockwise_gpu.py) | grep "_s8_";
  python3 $P names | grep blockwise;
  python3 -c "
from cutlass_gemm.kernels.blockwise import select_config
for act in ('none', 'relu', 'relu6', 'gelu_tanh', 'silu'):
    print(select_config('bf16', 200, act, 'k', 's8', 264).name)" ) | sort -u > $OUT/kernels_named.txt
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen48a --compile --jobs 12 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen48b --compile --jobs 2 \
  $(printf -- "--name %s " $(python3 $P names | grep -v blockwise)) 2>&1 \
  | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) blockwise): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels_bw.log) / $(tail -n 1 $OUT/kernels_gemm.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_blockint8_sm90_gpu test_pdl_blockwise_gpu test_blockint8_gpu; do
  timeout 150 $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
timeout $((590 - SECONDS)) python3 $P run $OUT/s8_mid.json > $OUT/s8_mid.log 2>&1
echo "s8 probe rc=$? at ${SECONDS}s"
python3 - $OUT/s8_mid.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['m']}x{r['n']}x{r['k']} selected {r['selected'].split('_sfamn_')[1]} per-token {r['per_token_us']:.1f}")
    for name, c in r["candidates"].items():
        print(f"   {name.split('_sfamn_')[1]:55s} {c['us']:8.1f} us  pt/this {c['per_token_over']:.3f}  maxerr "
              f"{c['max_err_over_max_ref']:.1e}  bits==sel {c['bitwise_equal_selected']}  finite {c['finite']}")
PY
tar czf /tmp/all48a.tgz -C $OUT . && mv /tmp/all48a.tgz $OUT/all.tgz
