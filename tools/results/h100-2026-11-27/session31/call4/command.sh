# Session 31 call 4 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session31/call4/command.sh
# The M = 16 (and 8 x 8192^2 int8) decode rows under forced split-K counts x the launcher's CTA spread on / off
# (probe_splits.py), timed in alternation with bf16 F.linear.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s31d
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site31 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site31:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout 200 python3 tools/results/h100-2026-11-27/session31/probe/probe_splits.py $OUT/splits.md > $OUT/probe.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
cat $OUT/probe.log | tail -20
