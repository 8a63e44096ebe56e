# Session 37 call 1 (2026-11-28), carry ["devtmp/s37/pfp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session37/call1/command.sh
# devtmp/s37/pfp: probe/pf_probe.cu built on the development machine against the working tree of this call (the
# library's GEMV and direct weight-only kernels with the new `rest` bulk L2 prefetch after the wait, off unless asked):
#   cd tools/results/h100-2026-11-28/session37/probe && nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o pfp pf_probe.cu
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 300 ./devtmp/s37/pfp "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" 2>&1 | tee $OUT/pf_probe.txt
