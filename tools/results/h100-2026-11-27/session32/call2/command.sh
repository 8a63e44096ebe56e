# Session 32 call 2 (2026-11-27), from the repository root (standalone harness, no kernel cache):
#   bash tools/results/h100-2026-11-27/session32/call2/command.sh
# probe/tune.cu: int8 per channel and int4 g128 decode kernels at M = 16 (bf16 x) beyond the committed variants (direct
# shapes, forced split counts, stream kernels), each timed in alternation with variant 22 at its plan.
set -u
SECONDS=0
nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 -I cutlass_gemm/runtime/csrc \
  tools/results/h100-2026-11-27/session32/probe/tune.cu -o /tmp/tune32 > $OUT/build.log 2>&1
echo "build rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout 300 /tmp/tune32 > $OUT/tune.md 2>&1
echo "tune rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
cat $OUT/tune.md
