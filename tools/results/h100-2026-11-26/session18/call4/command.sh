# Session 18 call 4 (2026-11-26), carry ["devtmp/s18"]: harness qt18d (session18/qt/qt18d.cu, built on the CPU machine
# against the tree with RowQuant's kLateW): RMSNorm without residual with its weight loaded after the sum of squares,
# at the library's occupancy and at 10 / 5 CTAs per SM (48 registers), with and without streaming input loads.
set -u
SECONDS=0
timeout 300 ./devtmp/s18/qt18d > $OUT/qt18d.log 2>&1; echo "qt18d rc=$? at ${SECONDS}s"
cat $OUT/qt18d.log
