# call 2 (2026-11-23, session 5): quant harness qb (q stored as 32-bit words: no byte repacking), weight-
# only harness wb (copy plan out of the pipeline loop, zero-filled K tails instead of per-warp masks):
# checks + timing rows, torch extension from scratch, weight-only GPU tests, quant + weight-only benchmarks.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
timeout 170 devtmp/qb/qb > $OUT/qb6.log 2>&1; echo "qb rc=$? at ${SECONDS}s" | tee -a $OUT/qb6.log
grep -E "CHECKS|graph" $OUT/qb6.log; grep -B1 MISMATCH $OUT/qb6.log | grep -v MISMATCH | head -5
grep -E "^ +2048 +(4096|8192) (per_token|rms|static)" $OUT/qb6.log | head -12
LIBS=$(python3 -c "import glob, nvidia; print(':'.join(d for p in nvidia.__path__ for d in glob.glob(p + '/*/lib')))")
LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 200 devtmp/wb/wb > $OUT/wb.log 2>&1; echo "wb rc=$? at ${SECONDS}s" | tee -a $OUT/wb.log
grep -E "^(CHECKS|FAIL)" $OUT/wb.log | head -8; grep -E "^TIME .*default  " $OUT/wb.log | head -30
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( t0=$(date +%s); python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" && echo "extension ready in $(( $(date +%s) - t0 )) s" ) > $OUT/extension.log 2>&1; tail -1 $OUT/extension.log
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_gpu.py > $OUT/gpu_tests_wo.log 2>&1; echo "wo tests rc=$? at ${SECONDS}s"; tail -2 $OUT/gpu_tests_wo.log
timeout 100 python3 tools/benchmark.py quant --out $OUT > $OUT/bench_quant.log 2>&1; echo "quant rc=$? at ${SECONDS}s"
grep -E "^\| (16|2048) \|" $OUT/quant.md
timeout $((590 - SECONDS)) python3 tools/benchmark.py weight_only --quick --out $OUT > $OUT/bench_wo.log 2>&1; echo "wo rc=$? at ${SECONDS}s"
grep -E "^\|" $OUT/weight_only.md | head -30
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
