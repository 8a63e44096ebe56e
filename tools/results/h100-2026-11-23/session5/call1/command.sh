# call 1 (2026-11-23, session 5): quant harness qb (int8 rounding through the 1.5*2^23 add instead of
# cvt.rni; byte checks vs the old kernels; occupancy caps 768..1536), weight-only harness timing rows
# (wb time: default kernel vs tuning variants vs cuBLAS bf16), extension build, quant benchmark.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
timeout 170 devtmp/qb/qb > $OUT/qb5.log 2>&1; echo "qb rc=$? at ${SECONDS}s" | tee -a $OUT/qb5.log
grep -E "CHECKS|graph" $OUT/qb5.log; grep -B1 MISMATCH $OUT/qb5.log | grep -v MISMATCH | head -5
grep -E "^ +2048 +4096 per_token int8|^ +2048 +8192 per_token int8" $OUT/qb5.log
LIBS=$(python3 -c "import glob, nvidia; print(':'.join(d for p in nvidia.__path__ for d in glob.glob(p + '/*/lib')))")
LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 150 devtmp/wb/wb time > $OUT/wb_time.log 2>&1; echo "wb rc=$? at ${SECONDS}s" | tee -a $OUT/wb_time.log
grep -E "^TIME .*default  " $OUT/wb_time.log | head -30
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( t0=$(date +%s); python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" && echo "extension ready in $(( $(date +%s) - t0 )) s" ) > $OUT/extension.log 2>&1; tail -1 $OUT/extension.log
timeout $((585 - SECONDS)) python3 tools/benchmark.py quant --out $OUT > $OUT/bench_quant.log 2>&1; echo "quant rc=$? at ${SECONDS}s"
grep -E "^\| (16|2048) \|" $OUT/quant.md
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
