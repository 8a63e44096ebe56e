# Session 15 call 2 (2026-11-26), carry [".whl", "devtmp/cache_s15"]: the block-scaled GEMV's launch rule from call 1's
# probe (8 warps / 4 chunks per step at M <= 8, 4 warps where that gives a warp under two steps; M 9..16 2 chunks,
# 4 warps when N / 16 CTAs need one to two waves of 8-warp CTAs); the fixed decode test; the probe of the rule
# against forced settings (M 9..16 with 4 chunks too); the benchmark rows; the three GPU test files again.
set -u
SECONDS=0
D=tools/results/h100-2026-11-26/session15/call2
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s15b
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s15/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site15 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site15:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_block_gemv_gpu.py > $OUT/tests_block_gemv.log 2>&1
echo "block gemv tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_block_gemv.log)"
timeout 120 python3 $D/probe_block_gemv.py > $OUT/probe_block_gemv.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
timeout 90 python3 tools/bench_blockint8.py --shapes 1x8192x8192,8x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,16x28672x4096,16x4096x4096,16x7168x2048 > $OUT/bench_blockint8.log 2>&1
timeout 60 python3 tools/bench_blockint8.py --block 64 --shapes 1x8192x8192,16x8192x8192,16x4096x14336,16x28672x4096 > $OUT/bench_blockint8_b64.log 2>&1
echo "bench int8 rc=$? at ${SECONDS}s"
timeout 100 python3 tools/benchmark.py blockwise --shapes 1x7168x2048,16x7168x2048,16x8192x8192,16x4096x14336,16x28672x4096 \
  --choices sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0 --out $OUT/bw > $OUT/bench_blockwise.log 2>&1
echo "bench blockwise rc=$? at ${SECONDS}s"
timeout $((575 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockint8_gpu.py tests/test_gemv_gpu.py \
  tests/test_blockwise_gpu.py > $OUT/tests_files.log 2>&1
echo "file tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_files.log)"
