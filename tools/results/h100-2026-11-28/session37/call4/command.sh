# Session 37 call 4 (2026-11-28), carry ["devtmp/s37/swp"], from the repository root:
#   bash tools/results/h100-2026-11-28/session37/call4/command.sh
# devtmp/s37/swp: probe/sw_probe.cu (patch -o sw_probe.cu gx_probe.cu sw_probe.diff) built on the development machine against this call's working tree (the library's
# GEMV; gemv_w8a8.cu's launch_form, one kernel form per step depth):
#   cd tools/results/h100-2026-11-28/session37/probe && nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o swp sw_probe.cu
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 500 ./devtmp/s37/swp "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" 2990 > $OUT/sw_probe.txt 2>&1
echo rc=$?; grep -c "us (" $OUT/sw_probe.txt; grep -i "BAD\|NON-FINITE\|invalid\|error" $OUT/sw_probe.txt | head
