# call 1 (2026-11-23, session 4): quant_v2 harness (checks, timings, occupancy caps), then the GPU suite on an
# empty cache with every SM90 kernel and the quant benchmark + demo.
set -u
SECONDS=0
timeout 170 devtmp/qb/qb > $OUT/qb3.log 2>&1; echo "qb rc=$? in ${SECONDS}s" >> $OUT/qb3.log
grep -E "CHECKS|graph|copy bandwidth" $OUT/qb3.log; grep -c MISMATCH $OUT/qb3.log
REM=$((585 - SECONDS))
EMPTY_CACHE=1 BENCH="quant" timeout $REM bash tools/gpu_session.sh $OUT all -k "not test_sm80_on_sm90_gpu" -p no:cacheprovider > $OUT/session_stdout.log 2>&1
echo rc=$? >> $OUT/session_stdout.log
tail -25 $OUT/session_stdout.log
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
