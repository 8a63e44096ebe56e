# Session 18 call 7 (2026-11-26), carry [".whl"]: issue 12's W8A16 line. The extension built on an EMPTY cache, then
# session18/wo/probe_w8.py: the weight-only small-M kernel on int8 per-channel weights, every variant x forced split
# count at M = 1 / 4 / 16, three shapes, against bf16 F.linear.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s18w
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site18 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site18:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 300 python3 tools/results/h100-2026-11-26/session18/wo/probe_w8.py $OUT/probe_w8.md > $OUT/probe_w8.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; tail -n 3 $OUT/probe_w8.log
grep -E "bf16 F.linear|\*|best" $OUT/probe_w8.md
