# Session 11 call 7 (warm machine of call 6, its cache): the GPU test files call 6 did not reach (full/run_tests.sh).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_full
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site11 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site11:$PWD
bash tools/results/h100-2026-11-26/session11/full/run_tests.sh $OUT 45
