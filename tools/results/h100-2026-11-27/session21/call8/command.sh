# Session 21 call 8 (2026-11-27), carry [".whl", "devtmp/nvmath"]: the cuBLASLt package after its plan code moved from
# cublaslt/matmul.py to cublaslt/_matmul_plans.py: tests/test_cublaslt_gpu.py on the H100 (nvmath-python 1.0.0 cp312
# wheel installed without dependencies, as session 13 call 6). EMPTY kernel cache. Call 7 the same before the GPU test read the plan cache from its new module (4 failed: AttributeError).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s21g
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site21n .whl/*.whl devtmp/nvmath/*.whl || exit 1
export PYTHONPATH=/tmp/site21n:$PWD
python3 -c "import nvmath; print('nvmath', nvmath.__version__)"
timeout 400 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_cublaslt_gpu.py > $OUT/test_cublaslt_gpu.log 2>&1
echo "test_cublaslt_gpu rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_cublaslt_gpu.log)"
grep -E "FAILED|ERROR" $OUT/test_cublaslt_gpu.log | head
