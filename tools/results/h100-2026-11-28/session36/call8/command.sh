# Session 36 call 8 (2026-11-28), carry ["devtmp/s36/wgp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session36/call8/command.sh
# devtmp/s36/wgp: probe/wg_probe.cu with "rot" candidates (each CTA starts its K range at its own offset, tile % iters,
# so the CTAs of a split do not read the same x slab at once; call 7's stall sampling had the compute warps waiting on
# their stage's data 21% of the time with the copy warp seldom waiting for a free slot), built on the development
# machine at the kernel of commit 73328ba plus that rotation (nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a
# -o devtmp/s36/wgp probe/wg_probe.cu).
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 120 ./devtmp/s36/wgp 2>&1 | tee $OUT/wg_probe.txt
