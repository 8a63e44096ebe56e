# Session 38 call 1 (2026-11-28), carry ["devtmp/s38"], from the repository root. devtmp/s38/ntp is probe/nt_probe.cu as
# it stood for this call (the nt2 rows: nt_kernel.cuh with 2 m16 weight tiles a warp; before pipe_kernel.cuh was added),
# built here with: nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o devtmp/s38/ntp nt_probe.cu
mkdir -p $OUT && nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt; timeout 300 ./devtmp/s38/ntp H100 > $OUT/nt_probe.txt 2>&1; echo rc=$?; cat $OUT/nt_probe.txt
