# Session 38 call 5 (2026-11-28), carry ["devtmp/s38"], from the repository root. devtmp/s38/txp is probe/tx_probe.cu
# (tx_kernel.cuh: the activation staged in shared memory by bulk copies, registers for weight only), built with
# nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o devtmp/s38/txp tx_probe.cu
# (A first run of it stopped at once: "invalid argument" from cudaFuncSetAttribute asking 200 KB of dynamic shared
# memory beside the 2-tile kernels' 32 KB of static; the probe now asks 227 KB less the static size. Nothing was timed.)
mkdir -p $OUT && nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt; timeout 300 ./devtmp/s38/txp H100 > $OUT/tx_probe.txt 2>&1; echo rc=$?
