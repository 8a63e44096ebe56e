# Session 38 call 4 (2026-11-28), carry ["devtmp/s38"], from the repository root. devtmp/s38/xhp is probe/xh_probe.cu
# (xh_kernel.cuh: the e4m3 GEMV with explicit conversions; x16 rows read the activation as float16), built with
# nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o devtmp/s38/xhp xh_probe.cu
mkdir -p $OUT && nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt; timeout 300 ./devtmp/s38/xhp H100 > $OUT/xh_probe.txt 2>&1; echo rc=$?
