# Session 36 call 10 (2026-11-28), carry ["devtmp/s36/wgp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session36/call10/command.sh
# devtmp/s36/wgp: call 9's wg_probe_split.cu with probe/wg_probe_split2.diff applied (wg_probe_split2.cu), built on the development machine in a checkout of commit 73328ba with
# probe/split2.patch applied (call 9's options plus kMode 3: the copy warp's stages alone with each CTA's weight of a
# slab as ONE contiguous bulk copy instead of one per 32-column warp tile; timing only, it reads the same number of bytes
# from a layout not built, so its "rel err" is meaningless, as for modes 1 / 2):
#   git worktree add /tmp/wt36 73328ba && cd /tmp/wt36 && git apply .../probe/split2.patch && patch -o wg_probe_split2.cu wg_probe_split.cu .../probe/wg_probe_split2.diff
#   (wg_probe_split.cu as in call9/command.sh)
#   nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o wgp wg_probe_split2.cu
# Whether the copy half's ~25 us (call 9) is the 1 KB granularity of the bulk copies.
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 120 ./devtmp/s36/wgp 2>&1 | tee $OUT/wg_probe.txt
