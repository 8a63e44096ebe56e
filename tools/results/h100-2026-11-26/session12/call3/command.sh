# Session 12 call 3 (warm machine of call 2, its cache: the SM90 default set and the extension): the GPU test files
# the change touches, in order (full/run_tests.sh; JIT on: a kernel still missing is built on first use).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_full
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR/sm90 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
bash tools/results/h100-2026-11-26/session12/full/run_tests.sh $OUT 45 $SECONDS
