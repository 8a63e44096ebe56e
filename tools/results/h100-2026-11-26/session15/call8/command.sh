# Session 15 call 8 (2026-11-26), carry [".whl"] only: EMPTY kernel cache, the final code (review: one step rule and
# one warps rule for both GEMV forms, gemv_set_step, runtime.gemv.block_module). Extension, the default SM90 set and
# the blockwise set built here side by side; then the GEMV, block-GEMV, per-block int8 and blockwise GPU tests; then
# the decode rows at M = 16 (the refactor must not move them).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s15h_empty
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site15 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site15:$PWD
nvidia-smi --query-gpu=name --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen15h --compile --jobs 6 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_blockwise.log ) &
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen15h --compile --jobs 6 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_sm90.log
wait
echo "builds at ${SECONDS}s: $(tail -n 1 $OUT/kernels_sm90.log) | $(tail -n 1 $OUT/kernels_blockwise.log) | $(tail -n 1 $OUT/extension.log)"
timeout $((520 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_gemv_gpu.py tests/test_block_gemv_gpu.py \
  tests/test_blockint8_gpu.py tests/test_blockwise_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
timeout $((585 - SECONDS)) python3 tools/benchmark.py decode --shapes 16x8192x8192,16x4096x14336,16x14336x4096,16x28672x4096 --out $OUT/bd > $OUT/decode.log 2>&1
echo "decode rc=$? at ${SECONDS}s"
