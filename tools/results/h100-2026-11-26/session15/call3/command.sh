# Session 15 call 3 (2026-11-26), carry [".whl"] only: EMPTY kernel cache. The extension built from scratch and the
# blockwise set built with the documented command (tests/test_blockwise_gpu.py's docstring) beside it; the GPU tests
# of the block-scaled GEMV and the three files it touches; the benchmark rows with the final launch rule (call 2's
# probe: 4 chunks per step at M 9..16 too, unless N / 16 CTAs exceed four per SM).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s15c_empty
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site15 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site15:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --blockwise --out /tmp/gen15c --compile --jobs 12 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_blockwise.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_blockwise.log)"
wait; tail -n 1 $OUT/extension.log
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_block_gemv_gpu.py > $OUT/tests_block_gemv.log 2>&1
echo "block gemv tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_block_gemv.log)"
timeout 60 python3 tools/bench_blockint8.py --shapes 1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,16x28672x4096,16x4096x4096,16x7168x2048 > $OUT/bench_blockint8.log 2>&1
timeout 40 python3 tools/bench_blockint8.py --block 64 --shapes 16x8192x8192,16x4096x14336,16x28672x4096 > $OUT/bench_blockint8_b64.log 2>&1
echo "bench int8 at ${SECONDS}s"
timeout 60 python3 tools/benchmark.py blockwise --shapes 1x8192x8192,16x8192x8192,16x4096x14336,16x28672x4096 \
  --choices sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0 --out $OUT/bw > $OUT/bench_blockwise.log 2>&1
echo "bench blockwise rc=$? at ${SECONDS}s"
timeout $((580 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockint8_gpu.py tests/test_gemv_gpu.py \
  tests/test_blockwise_gpu.py > $OUT/tests_files.log 2>&1
echo "file tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_files.log)"
