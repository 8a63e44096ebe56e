# Session 31 call 5 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session31/call5/command.sh
# Where the M = 16 decode time goes: one plan (variant, splits) called with 1 / 4 / 8 / 16 rows of x (probe_rows.py),
# timed in alternation with bf16 F.linear.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s31e
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site31 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site31:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout 200 python3 tools/results/h100-2026-11-27/session31/probe/probe_rows.py $OUT/rows.md > $OUT/probe.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
cat $OUT/probe.log | tail -20
