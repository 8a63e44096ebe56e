# Session 38 call 3 (2026-11-28), carry ["devtmp/s38"], from the repository root. devtmp/s38/ntp3 is probe/nt_probe.cu as
# committed (ablation rows x-L1 / no-x / no-mma from nt_kernel.cuh's kAbl, the pipe rows, M = 1 row added), built with
# nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o devtmp/s38/ntp3 nt_probe.cu
mkdir -p $OUT && nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt; timeout 300 ./devtmp/s38/ntp3 H100 > $OUT/nt_probe3.txt 2>&1; echo rc=$?
