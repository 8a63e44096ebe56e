# call B: the whole GPU suite on an empty cache with every SM90 kernel (shared runtime), the layer and overhead benchmarks, the demo
set -u
EMPTY_CACHE=1 BENCH="layer" timeout 570 bash tools/gpu_session.sh $OUT all -k "not test_sm80_on_sm90_gpu" -p no:cacheprovider > $OUT/session_stdout.log 2>&1
echo rc=$? >> $OUT/session_stdout.log
tail -45 $OUT/session_stdout.log
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
