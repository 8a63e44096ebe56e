# Session 36 call 4 (2026-11-28), carry ["devtmp/s36/wgp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session36/call4/command.sh
# devtmp/s36/wgp: probe/wg_probe.cu built on the development machine
#   (nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o devtmp/s36/wgp tools/results/h100-2026-11-28/session36/probe/wg_probe.cu)
# The wgmma kernel's CTA shapes and accumulator chains (c2: two accumulators per column slice) against variant 3.
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 300 ./devtmp/s36/wgp 2>&1 | tee $OUT/wg_probe.txt
