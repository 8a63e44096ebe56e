# Session 12 call 13 (2026-11-26), carry ["devtmp/gemv12"]: gemv/gemv12 (built on the CPU machine: bash
# gemv/make_variants.sh && nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 gemv/gemv12.cu): the W8A8
# decode GEMV with its weight loads as they are, with .L2::128B and with .L2::256B prefetch hints, one process.
set -u
timeout 300 ./devtmp/gemv12/gemv12 > $OUT/gemv12.log 2>&1; echo "rc=$?"; cat $OUT/gemv12.log
