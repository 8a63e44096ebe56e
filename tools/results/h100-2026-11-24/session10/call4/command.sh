# Session 10 call 4 (2026-11-24), fresh machine: the GEMV harness only (session10/gemv/gemv_bench.cu): the
# double-buffered register kernel ("pipe", now in gemv_w8a8.cuh) against calls 2-3's single-buffer one ("v1") and
# the ring kernel, every output checked against the naive int32 reference.
set -u
nvcc -std=c++17 -O3 -arch=sm_90 -I cutlass_gemm/runtime/csrc tools/results/h100-2026-11-24/session10/gemv/gemv_bench.cu -o /tmp/gemv_bench && /tmp/gemv_bench > $OUT/gemv_bench.log 2>&1
echo "harness rc=$?"; cat $OUT/gemv_bench.log
