# Session 47 call 4 (kind nvidia-h200), EMPTY kernel cache, the final code (blockwise generator 9; SELECTION_S8's
# per-atom row from 384 rows, WIDE_MIN_TILES = 67 for both families): builds the extension and the kernels the int8
# GPU tests name (tests/test_blockint8_sm90_gpu.py, tests/test_pdl_blockwise_gpu.py print them; the activation
# kernels of tests/test_blockint8_gpu.py at 200 rows) and the per-token int8 GEMM of the benchmark's shapes, runs the
# three files with JIT off, then tools/bench_blockint8.py at the M >= 2048 shapes.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc47d
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site47 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site47:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_blockint8_sm90_gpu.py && python3 test_pdl_blockwise_gpu.py);
  python3 -c "
from cutlass_gemm.kernels.blockwise import select_config
for act in ('none', 'relu', 'relu6', 'gelu_tanh', 'silu'):
    print(select_config('bf16', 200, act, 'k', 's8', 264).name)" ) | sort -u > $OUT/kernels_named.txt
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen47g --compile --jobs 14 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen47h --compile --jobs 2 \
  --name sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 2>&1 \
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
timeout $((585 - SECONDS)) python3 tools/bench_blockint8.py --shapes 2048x8192x8192,4096x7168x2048,8192x8192x8192 \
  > $OUT/bench.md 2> $OUT/bench.err
echo "bench rc=$? at ${SECONDS}s"; cat $OUT/bench.md | cut -c1-220
tar czf /tmp/all47d.tgz -C $OUT . && mv /tmp/all47d.tgz $OUT/all.tgz
