# call 3 (2026-11-23, session 4): weight-only harness (checks + timings + tuning rows), then the whole GPU
# suite on an empty kernel cache with every SM90 kernel (quant, W8A8, weight-only, tiny Llama under every
# scheme), the demo, and the weight-only benchmark.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1
LIBS=$(python3 -c "import glob, nvidia; print(':'.join(d for p in nvidia.__path__ for d in glob.glob(p + '/*/lib')))")
# the harness runs on the GPU while the CPU builds the kernels (it queues its timed calls behind a GPU sleep)
export LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
( timeout 150 devtmp/wb/wb > $OUT/wb.log 2>&1; rc=$?; echo "wb rc=$rc at ${SECONDS}s" >> $OUT/wb.log
  if [ $rc != 0 ]; then  # the first case: under compute-sanitizer, and rebuilt here with this machine's nvcc
    timeout 90 compute-sanitizer --tool memcheck --print-limit 20 devtmp/wb/wb checks > $OUT/wb_memcheck.log 2>&1
    timeout 90 compute-sanitizer --tool synccheck --print-limit 20 devtmp/wb/wb checks > $OUT/wb_synccheck.log 2>&1
    L=$(echo $LIBS | tr ':' '\n' | grep cublas | head -1)
    nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 -Idevtmp/cublas/include -L$L -l:libcublas.so.13 \
      -o /tmp/wb_here tools/results/h100-2026-11-23/wo/wb.cu > $OUT/wb_rebuild.log 2>&1 && timeout 100 /tmp/wb_here checks >> $OUT/wb_rebuild.log 2>&1
    echo "rebuilt rc=$? at ${SECONDS}s" >> $OUT/wb_rebuild.log
  fi ) &
WB=$!
EMPTY_CACHE=1 BENCH= timeout 555 bash tools/gpu_session.sh $OUT all -k "not test_sm80_on_sm90_gpu" -p no:cacheprovider > $OUT/session_stdout.log 2>&1
echo "session rc=$? at ${SECONDS}s"; wait $WB; tail -1 $OUT/wb.log; tail -3 $OUT/wb_rebuild.log 2>/dev/null; grep -m5 -E "ERROR|Error|error" $OUT/wb_memcheck.log $OUT/wb_synccheck.log 2>/dev/null
grep -E "^(CHECKS|FAIL)" $OUT/wb.log | head -10; grep -E "^TIME .*\| default  " $OUT/wb.log | head -30
 grep -E "passed|failed|error" $OUT/gpu_tests.log | tail -3; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests.log | head -20; tail -10 $OUT/demo.log
export PYTHONPATH=/tmp/site:$PWD CUTLASS_GEMM_CACHE_DIR=/tmp/cutlass_gemm_cache
timeout $((590 - SECONDS)) python3 tools/benchmark.py weight_only --quick --out $OUT > $OUT/bench_wo.log 2>&1; echo "wo rc=$? at ${SECONDS}s"
grep -E "^\|" $OUT/weight_only.md | head -30
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
