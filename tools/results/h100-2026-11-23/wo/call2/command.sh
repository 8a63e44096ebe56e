# call 2 (2026-11-23, session 4): quant harness (persistent rows, caps, per-tensor cluster path), weight-only
# harness, extension + benchmark kernels from an empty cache, GPU tests of quant ops and weight-only,
# benchmarks quant, weight_only, layer; demo.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
rm -rf /tmp/cgc
timeout 120 devtmp/qb/qb > $OUT/qb4.log 2>&1; echo "qb rc=$? at ${SECONDS}s" | tee -a $OUT/qb4.log
grep -E "CHECKS|graph" $OUT/qb4.log; grep -B1 MISMATCH $OUT/qb4.log | grep check | head
LIBS=$(python3 -c "import glob, nvidia; print(':'.join(d for p in nvidia.__path__ for d in glob.glob(p + '/*/lib')))")
LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 120 devtmp/wb/wb > $OUT/wb.log 2>&1; echo "wb rc=$? at ${SECONDS}s" | tee -a $OUT/wb.log
grep -E "^(CHECKS|FAIL)" $OUT/wb.log | head -20; grep -E "^TIME .*\| default  " $OUT/wb.log | head -40
KERNELS=subset BENCH= timeout 300 bash tools/gpu_session.sh $OUT tests -p no:cacheprovider -k "test_quant_ops_gpu or test_weight_only_gpu" > $OUT/session_stdout.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -30 $OUT/session_stdout.log
export PYTHONPATH=/tmp/site:$PWD
timeout $((560 - SECONDS)) python3 tools/benchmark.py quant --out $OUT > $OUT/bench_quant.log 2>&1; echo "quant rc=$? at ${SECONDS}s"
grep -E "^\| (16|2048) \|" $OUT/quant.md
timeout $((570 - SECONDS)) python3 tools/benchmark.py weight_only --quick --out $OUT > $OUT/bench_wo.log 2>&1; echo "wo rc=$? at ${SECONDS}s"
tail -30 $OUT/weight_only.md 2>/dev/null
timeout $((580 - SECONDS)) python3 tools/benchmark.py layer --quick --out $OUT > $OUT/bench_layer.log 2>&1; echo "layer rc=$? at ${SECONDS}s"
cat $OUT/layer.md 2>/dev/null | tail -12
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
