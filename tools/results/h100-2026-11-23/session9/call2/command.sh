# Session 9 call 2 (2026-11-23), carry ["devtmp/prof", "devtmp/wb"], fresh machine: Nsight Compute profiles of
# (1) each activation-quant kernel at 2048x8192 bf16 (session9/prof/qprof.cu, built on the CPU machine with
# nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90), (2) the weight-only small-M kernel in the
# harness's timing mode (tools/results/h100-2026-11-23/wo/wb.cu, built as its README says), first launches only.
set -u
SECONDS=0
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
SEC="--section SpeedOfLight --section Occupancy --section LaunchStats --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section InstructionStats"
$NCU $SEC --kernel-name regex:"row_quant|group_quant|tensor_quant" -o $OUT/qprof ./devtmp/prof/qprof 2048 8192 > $OUT/qprof_run.log 2>&1
echo "qprof rc=$? at ${SECONDS}s"; tail -3 $OUT/qprof_run.log
$NCU --import $OUT/qprof.ncu-rep --page details > $OUT/qprof_details.txt 2>&1
LIBS=$(python3 -c "import glob, nvidia; print(':'.join(d for p in nvidia.__path__ for d in glob.glob(p + '/*/lib')))")
export LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
timeout 300 $NCU $SEC --kernel-name regex:"wo_gemm_kernel|wo_stream_kernel" --launch-count 3 -o $OUT/wprof ./devtmp/wb/wb time > $OUT/wprof_run.log 2>&1
echo "wprof rc=$? at ${SECONDS}s"; tail -3 $OUT/wprof_run.log
$NCU --import $OUT/wprof.ncu-rep --page details > $OUT/wprof_details.txt 2>&1
cd $OUT && tar czf all.tgz *.txt *.log && rm -f *.txt *.log
