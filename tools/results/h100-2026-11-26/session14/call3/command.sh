# Session 14 call 3 (2026-11-26), carry [".whl"]: EMPTY kernel cache, the new mixed-input SELECTION (32 kernels)
# and the small-M / mixed hand-off at M = 17: full/step.sh (build, weight-only GPU tests, benchmark weight_only,
# the tiny Llama), continued by the next call on the same machine if it is still warm.
set -u
SECONDS=0
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
echo "cache entries at start: $(ls /tmp/cgc_s14full/sm90 2>/dev/null | wc -l)"
bash tools/results/h100-2026-11-26/session14/full/step.sh $OUT 60 $SECONDS
