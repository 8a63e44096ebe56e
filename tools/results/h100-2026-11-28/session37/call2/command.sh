# Session 37 call 2 (2026-11-28), carry ["devtmp/s37/rdp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session37/call2/command.sh
# devtmp/s37/rdp: probe/rd_probe.cu built on the development machine against this call's working tree:
#   cd tools/results/h100-2026-11-28/session37/probe && nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o rdp rd_probe.cu
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 300 ./devtmp/s37/rdp "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" 2>&1 | tee $OUT/rd_probe.txt
