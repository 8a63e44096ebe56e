# Session 27 call 4 (kind nvidia-h100-x1; bash tools/results/h100-2026-11-27/session27/call4/command.sh) (2026-11-27), carry [".whl"] (now also nvmath-python 1.0.0, cp312): one H100, EMPTY cache:
# tests/test_cublaslt_gpu.py (calls 2-3 lacked nvmath on the device), tests/test_ops_gpu.py's stream test after its
# warm-up fix (the extension and the kernel built on first use, as a new user meets them), then first_load.py in a
# fresh process: does a kernel's first use wait for the side stream (the cause named in the fix)?
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s27c
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site27 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site27:$PWD
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_cublaslt_gpu.py > $OUT/test_cublaslt_gpu.log 2>&1
echo "cublaslt rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_cublaslt_gpu.log)"
timeout 330 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_ops_gpu.py -k "current_stream" > $OUT/test_ops_stream.log 2>&1
echo "ops stream rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_ops_stream.log)"
timeout 60 python3 tools/results/h100-2026-11-27/session27/first_load.py > $OUT/first_load.json 2> $OUT/first_load.err
echo "first_load rc=$? at ${SECONDS}s: $(cat $OUT/first_load.json)"; tail -3 $OUT/first_load.err
cd $OUT && tar czf all.tgz --remove-files *
