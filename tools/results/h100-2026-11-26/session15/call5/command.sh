# Session 15 call 5 (2026-11-26), carry [".whl", "devtmp/cache_s15"]: the decode GEMV tests after their no-sync and
# CUDA-graph steps moved into tests/gpu_helpers.py (the final commit's test file), and test_blockint8_gpu.py again.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s15e
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s15/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site15 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site15:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_block_gemv_gpu.py tests/test_blockint8_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
