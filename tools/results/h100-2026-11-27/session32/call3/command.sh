# Session 32 call 3 (2026-11-27), from the repository root (standalone harness, no kernel cache):
#   bash tools/results/h100-2026-11-27/session32/call3/command.sh
# Nsight Compute on the decode kernels (probe/prof.cu, the 6th of 12 launches, bf16 x, 8192 x 8192): the int4 16-row
# kernel (variant 22) at 16 rows and at 1 row (its 16-row plan), the M = 1 kernel (variant 23), the 8-row kernel
# (variant 16), and int8 variants 22 (16 rows) / 23 (1 row): speed of light, occupancy, warp states (stall reasons),
# instruction mix, pipe utilization.
set -u
SECONDS=0
nvcc -std=c++17 -O3 -lineinfo -gencode=arch=compute_90,code=sm_90 -I cutlass_gemm/runtime/csrc \
  tools/results/h100-2026-11-27/session32/probe/prof.cu -o /tmp/prof32 > $OUT/build.log 2>&1
echo "build rc=$? at ${SECONDS}s" | tee $OUT/times.txt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU" | tee -a $OUT/times.txt
for c in i4_v22_m16 i4_v22_m1 i4_v23_m1 i4_v16_m8 i8_v22_m16 i8_v23_m1; do
  timeout 100 $NCU -k regex:wo_direct --launch-skip 5 --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis --section LaunchStats \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_ldsm.sum,sm__warps_active.avg.per_cycle_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum" \
    /tmp/prof32 $c > $OUT/ncu_$c.txt 2>&1
  echo "ncu $c rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
done
for c in i4_v22_m16 i4_v22_m1 i4_v23_m1 i4_v16_m8 i8_v22_m16 i8_v23_m1; do
  echo "== $c"
  grep -E "^$c|Duration|DRAM Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|hmma|inst_executed|ldsm|issue_active|stalled" $OUT/ncu_$c.txt \
    | awk '/stalled/ { if ($NF+0 > 0.1) print; next } { print }' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -40
done
