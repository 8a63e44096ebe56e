# Session 36 call 6 (2026-11-28), carry ["devtmp/s36/wgp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session36/call6/command.sh
# devtmp/s36/wgp: probe/wg_probe.cu with the one-register-set ("ser": dequantize, issue, retire, no overlap inside the
# warpgroup) form at 2-4 CTAs per SM, built on the development machine
# (nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o devtmp/s36/wgp probe/wg_probe.cu).
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 120 ./devtmp/s36/wgp 2>&1 | tee $OUT/wg_probe.txt
