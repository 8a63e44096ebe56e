# Session 18 call 5 (2026-11-26), carry ["devtmp/s18"]: harness qt18e (session18/qt/qt18e.cu, built on the CPU machine
# against the tree with the two-pass per-tensor form): bytes of the two forms, graph capture of the two-pass form,
# times of both from 16 x 8192 to 8192 x 8192.
set -u
SECONDS=0
timeout 300 ./devtmp/s18/qt18e > $OUT/qt18e.log 2>&1; echo "qt18e rc=$? at ${SECONDS}s"
grep -v "^bytes.*same" $OUT/qt18e.log
