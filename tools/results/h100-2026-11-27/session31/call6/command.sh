# Session 31 call 6 (2026-11-27), from the repository root (no kernel cache: a standalone harness):
#   bash tools/results/h100-2026-11-27/session31/call6/command.sh
# The direct x16 4x2 kernel with its products as SM90 wgmma (probe/wgmma_probe.cu) against variant 22 (mma.sync) and
# the M = 1 kernel, same packed weight and plan, output checked against variant 22, timed in alternation.
set -u
SECONDS=0
nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o /tmp/wgp tools/results/h100-2026-11-27/session31/probe/wgmma_probe.cu > $OUT/build.log 2>&1
echo "build rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout 120 /tmp/wgp 2>&1 | tee $OUT/wgmma_probe.log
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
