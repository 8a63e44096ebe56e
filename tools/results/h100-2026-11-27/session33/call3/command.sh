# Session 33 call 3 (2026-11-27), carry ["devtmp/s33/bin"], from the repository root (standalone harness, no kernel cache):
#   bash tools/results/h100-2026-11-27/session33/call3/command.sh
# probe/tune33.cu, built on the development machine (nvcc 13.0, the repository's headers of this commit):
#   nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 -Xptxas -v -I cutlass_gemm/runtime/csrc \
#     tools/results/h100-2026-11-27/session33/probe/tune33.cu -o devtmp/s33/bin/tune33   (ptxas report: probe/tune33_ptxas.log)
# Direct kernels with x32 / x64 tiles against the committed small-M kernels for 17..64 rows (int4 g128, bf16 x).
set -u
SECONDS=0
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
timeout 500 devtmp/s33/bin/tune33 > $OUT/tune.md 2>&1
echo "tune rc=$? at ${SECONDS}s" | tee $OUT/times.txt
cat $OUT/tune.md
