# Session 12 call 5 (warm machine of calls 2-4, its cache): the stream-K / split-K test's kernels built in parallel
# (call 3's test file timed out building them one by one on first use), then tests/test_streamk_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_full
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
NAMES=$(python3 -c "import sys; sys.path.insert(0, 'tests'); import test_streamk_gpu as t; print(' '.join('--name ' + c.name for c in t.KERNELS))")
timeout 200 python3 tools/generate_kernels.py --out /tmp/gen_sk --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels_streamk.log
echo "stream-K kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_streamk.log)"
timeout $((280 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_streamk_gpu.py > $OUT/test_streamk_gpu.log 2>&1
echo "test_streamk_gpu rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_streamk_gpu.log)"
