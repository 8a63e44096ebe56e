# Session 36 call 5 (2026-11-28), carry ["devtmp/s36/wgp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session36/call5/command.sh
# devtmp/s36/wgp: probe/wg_probe.cu (two accumulator chains with registers capped for 2 CTAs per SM: "c2 b2") built on
# the development machine (nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o devtmp/s36/wgp probe/wg_probe.cu);
# then Nsight Compute at 64 x 8192^2 on the 1-warpgroup kernel (c1, = variant 37) and on "w1 s6 c2 b2".
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 120 ./devtmp/s36/wgp 2>&1 | tee $OUT/wg_probe.txt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for c in 2 4; do
  timeout 90 $NCU -k "regex:wo_wgmma" --launch-skip 5 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SourceCounters --section Occupancy \
    --metrics "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_gmma.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__issue_active.avg.pct_of_peak_sustained_active" \
    ./devtmp/s36/wgp $c 0 > $OUT/ncu_c$c.txt 2>&1
  echo "ncu $c rc=$?"
  grep -E "Duration|Throughput|Issue Slots|Pipe|pipe|Shared|Registers|Occupancy|stall|Warp Cycles|gmma|hmma" $OUT/ncu_c$c.txt | head -40
done
