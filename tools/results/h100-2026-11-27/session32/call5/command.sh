# Session 32 call 5 (2026-11-27), from the repository root (standalone harness, no kernel cache):
#   bash tools/results/h100-2026-11-27/session32/call5/command.sh
# probe/tune.cu with TUNE_SET=t1024: the 16-row direct kernel at 1024 resident threads per SM (64 registers; ptxas spill
# counts in build.log), four CTA shapes, against variant 22 (call 3: variant 22 holds 24 warps per SM, the M = 1 kernel 32).
set -u
SECONDS=0
nvcc -std=c++17 -O3 -Xptxas -v -gencode=arch=compute_90,code=sm_90 -I cutlass_gemm/runtime/csrc \
  tools/results/h100-2026-11-27/session32/probe/tune.cu -o /tmp/tune32 > $OUT/build.log 2>&1
echo "build rc=$? at ${SECONDS}s" | tee $OUT/times.txt
TUNE_SET=t1024 timeout 200 /tmp/tune32 > $OUT/tune.md 2>&1
echo "tune rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
grep -A2 "wo_direct_kernel.*Li16ELi[0-9]ELi[0-9]ELi1ELi1024E" $OUT/build.log | grep -E "Compiling|spill|registers" | head -40
cat $OUT/tune.md
