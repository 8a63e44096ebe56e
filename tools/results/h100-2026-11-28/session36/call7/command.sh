# Session 36 call 7 (2026-11-28), carry ["devtmp/s36/wgp"] (call 6's binary of probe/wg_probe.cu, commit 73328ba), from the
# repository root: bash tools/results/h100-2026-11-28/session36/call7/command.sh
# Nsight Compute's per-instruction warp-stall sampling (SASS, CSV) of candidate 3 ("wg w1 s4 c1 b3 ser": one warpgroup
# and a copy warp per CTA, 3 CTAs per SM) at 64 x 8192^2: where the warps wait.
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
timeout 200 $NCU -k "regex:wo_wgmma" --launch-skip 5 --launch-count 1 --section WarpStateStats --section SourceCounters \
  --page source --print-source sass --csv ./devtmp/s36/wgp 3 0 > $OUT/src_c3.csv 2> $OUT/ncu_err.txt
echo "ncu rc=$?"; wc -l $OUT/src_c3.csv; head -c 1500 $OUT/src_c3.csv; tail -3 $OUT/ncu_err.txt
