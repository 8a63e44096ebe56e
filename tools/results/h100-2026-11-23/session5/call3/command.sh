# call 3 (2026-11-23, session 5): what a new user meets — an EMPTY kernel cache, the torch extension and the
# whole SM90 default set (96 kernels) built with 16 jobs, then the GPU suite (all but the SM80 family, the
# activation tests and the weight-only kernel tests, which run in call 4 on the same code).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1
EMPTY_CACHE=1 BENCH= timeout 585 bash tools/gpu_session.sh $OUT tests -k "not test_sm80_on_sm90_gpu and not test_activation_gpu and not test_weight_only_gpu" -p no:cacheprovider > $OUT/session_stdout.log 2>&1
echo "session rc=$? at ${SECONDS}s"
cat $OUT/kernels.log; tail -1 $OUT/extension.log
grep -E "passed|failed" $OUT/gpu_tests.log | tail -2; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests.log | head -20
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
