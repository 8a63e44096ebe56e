# Session 38 call 2 (2026-11-28), carry ["devtmp/s38"], from the repository root. devtmp/s38/ntp2 is probe/nt_probe.cu
# with the pipe rows (pipe_kernel.cuh) in place of call 1's nt2 rows, before call 3's ablation rows were added, built with
# nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o devtmp/s38/ntp2 nt_probe.cu
mkdir -p $OUT && nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt; timeout 300 ./devtmp/s38/ntp2 H100 > $OUT/nt_probe2.txt 2>&1; echo rc=$?
