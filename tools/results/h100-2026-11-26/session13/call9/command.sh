# Session 13 call 9 (2026-11-26), carry ["devtmp/gemv13"]: gemv/gemv13 (built on the CPU machine: bash
# gemv/make_variants.sh, then nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 gemv/gemv13.cu): the W8A8 decode
# GEMV of commit dc3239d (v0), two weight tiles per CTA at M 9..16 (v1), the new code with one tile (v2), one process.
set -u
timeout 300 ./devtmp/gemv13/gemv13 > $OUT/gemv13.log 2>&1; echo "rc=$?"; cat $OUT/gemv13.log
