# Session 13 call 3: the machine and cache of calls 1-2 (held ~25 min of its 30): full/step.sh with ~270 s (the
# clock handed to it starts at 320 of its 590), then every log of calls 1-3 as one archive (the file-count limit).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s13
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site13 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site13:$PWD
bash tools/results/h100-2026-11-26/session13/full/step.sh $OUT 30 320
tar czf $OUT/logs.tgz -C /tmp/s13_state . 2>/dev/null; rm -f $OUT/*.log; ls /tmp/s13_state/*.done | wc -l
