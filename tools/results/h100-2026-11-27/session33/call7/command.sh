# Session 33 call 7 (2026-11-27), carry ["devtmp/s33/bin"], from the repository root (standalone harness, no kernel cache):
#   bash tools/results/h100-2026-11-27/session33/call7/command.sh
# probe/tune33b.cu, built on the development machine (nvcc 13.0, the repository's headers of this commit):
#   nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v -I cutlass_gemm/runtime/csrc \
#     tools/results/h100-2026-11-27/session33/probe/tune33b.cu -o devtmp/s33/bin/tune33b   (ptxas report: probe/tune33b_ptxas.log)
# The mma pipeline kernel with 2 / 4 m16 tiles in other CTA shapes, and the x32 / x64 stream kernels, at 24-64 rows.
set -u
SECONDS=0
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 500 devtmp/s33/bin/tune33b > $OUT/tune.md 2>&1
echo "tune rc=$? at ${SECONDS}s" | tee $OUT/times.txt
cat $OUT/tune.md
