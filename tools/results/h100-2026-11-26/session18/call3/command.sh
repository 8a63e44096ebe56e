# Session 18 call 3 (2026-11-26), carry [".whl", "devtmp/s18"]: harness qt18c (session18/qt/qt18c.cu, built on the CPU
# machine against the final tree): RMSNorm bf16 -> int8 on the 4-vector exact kernels, with and without session 17's
# residency-cap shared memory, at 1024-8192 rows, K = 4096 / 8192, with and without a residual.
set -u
SECONDS=0
timeout 400 ./devtmp/s18/qt18c > $OUT/qt18c.log 2>&1; echo "qt18c rc=$? at ${SECONDS}s"
tail -n 25 $OUT/qt18c.log
