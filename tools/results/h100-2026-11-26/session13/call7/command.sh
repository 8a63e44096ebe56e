# Session 13 call 7 (2026-11-26), carry [".whl", "devtmp/nvmath", "devtmp/oldlt"]: the cuBLASLt package on
# nvmath-python's bindings (nvmath-python 1.0.0 cp312 wheel installed without dependencies: cuda-bindings, cuda-core,
# cuda-pathfinder are on the device). tests/test_cublaslt_gpu.py, then nvmath/bench_lt.py (host cost per call: this
# tree vs commit 3690e52's ctypes package vs torch._int_mm, one process; this tree now also skips the device guard when the device is current, reads the raw stream, caches the capability; plus a cProfile of 2000 calls).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s13c
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site13n .whl/*.whl devtmp/nvmath/*.whl || exit 1
export PYTHONPATH=/tmp/site13n:$PWD
python3 -c "import nvmath, cuda.bindings, cuda.core; print('nvmath', nvmath.__version__)"
L=/tmp/s13_c7; mkdir -p $L
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_cublaslt_gpu.py > $L/test_cublaslt_gpu.log 2>&1
echo "test_cublaslt_gpu rc=$? at ${SECONDS}s: $(tail -n 1 $L/test_cublaslt_gpu.log)"
timeout 200 python3 tools/results/h100-2026-11-26/session13/nvmath/bench_lt.py $L devtmp/oldlt > $L/bench_lt.log 2>&1
echo "bench_lt rc=$? at ${SECONDS}s"; tail -n 30 $L/bench_lt.log
tar czf $OUT/logs.tgz -C $L .
