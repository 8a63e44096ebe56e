# Session 37 call 3 (2026-11-28), carry ["devtmp/s37/gxp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session37/call3/command.sh
# devtmp/s37/gxp: probe/gx_probe.cu built on the development machine against this call's working tree (gemv_w8a8.cuh
# with the kXS form, gemv_w8a8.cu's launch_form):
#   cd tools/results/h100-2026-11-28/session37/probe && nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -Xptxas -warn-spills -o gxp gx_probe.cu
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 400 ./devtmp/s37/gxp "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" 2990 2>&1 | tee $OUT/gx_probe.txt
