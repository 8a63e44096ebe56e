# Session 13 call 2: the machine and cache of call 1; full/step.sh continues the whole GPU suite (call 1's step.sh
# could not run its shell functions under `timeout`; fixed).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s13
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR/sm90 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site13 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site13:$PWD
bash tools/results/h100-2026-11-26/session13/full/step.sh $OUT 45 $SECONDS
