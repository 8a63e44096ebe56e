# Session 8 call 3 (2026-11-23), carry [".whl", "devtmp/qt8"], on call 2's machine while still warm: call 2's qt8.log
# did not come back (too many files under $OUT), so the harness (session8/qt/qt8.cu, built as in call 2) ran again.
./devtmp/qt8/qt8 > $OUT/qt8.log 2>&1; echo "qt8 rc=$?"; grep -A14 "by (cluster max" $OUT/qt8.log; grep -A12 "large: shared" $OUT/qt8.log
