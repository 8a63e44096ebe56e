# Session 15 call 4 (2026-11-26), carry [".whl", "devtmp/cache_s15"]: the blockwise fp8 benchmark rows with the final
# launch rule (call 3's timed out building the per-token e4m3 kernel its 16 x 7168 x 2048-free shapes still needed on
# an empty cache; that kernel is carried here), and the block GEMV tests once more.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s15d
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s15/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site15 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site15:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 150 python3 tools/benchmark.py blockwise --shapes 1x8192x8192,8x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,16x28672x4096,16x7168x2048 \
  --choices sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0 --out $OUT/bw > $OUT/bench_blockwise.log 2>&1
echo "bench blockwise rc=$? at ${SECONDS}s"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_block_gemv_gpu.py > $OUT/tests_block_gemv.log 2>&1
echo "block gemv tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_block_gemv.log)"
