# Session 36 call 9 (2026-11-28), carry ["devtmp/s36/wgp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session36/call9/command.sh
# devtmp/s36/wgp: probe/wg_probe.cu with probe/wg_probe_split.diff applied (wg_probe_split.cu), built on the development machine in a checkout of commit 73328ba with
# probe/split.patch applied (call 8's rotation option plus kMode: 1 = the copy warp's stages only, the compute warps
# releasing each slab as soon as it lands; 2 = the compute warps' dequantization and wgmmas only, no copies, no waits):
#   git worktree add /tmp/wt36 73328ba && cd /tmp/wt36 && git apply .../probe/split.patch && patch -o wg_probe_split.cu .../probe/wg_probe.cu .../probe/wg_probe_split.diff
#   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o wgp wg_probe_split.cu
# Which half of the ~31 us at 64 x 8192^2 is the bound: the copies or the math. ("rel err" is meaningless for modes 1 / 2.)
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 120 ./devtmp/s36/wgp 2>&1 | tee $OUT/wg_probe.txt
