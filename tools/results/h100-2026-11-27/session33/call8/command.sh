# Session 33 call 8 (2026-11-27), carry ["devtmp/s33/bin"], from the repository root (standalone harness, no kernel cache):
#   bash tools/results/h100-2026-11-27/session33/call8/command.sh
# probe/tune33c.cu, built on the development machine (nvcc 13.0, the repository's headers of this commit):
#   nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v -I cutlass_gemm/runtime/csrc \
#     tools/results/h100-2026-11-27/session33/probe/tune33c.cu -o devtmp/s33/bin/tune33c   (ptxas report: probe/tune33c_ptxas.log)
# The mma pipeline kernel with one m16 tile in other CTA shapes at 16 and 8 rows, against variant 22 and variant 4.
set -u
SECONDS=0
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 500 devtmp/s33/bin/tune33c > $OUT/tune.md 2>&1
echo "tune rc=$? at ${SECONDS}s" | tee $OUT/times.txt
cat $OUT/tune.md
