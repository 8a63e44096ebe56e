# Session 17 call 4 (2026-11-26), carry [".whl"]: the final code on an EMPTY kernel cache, the GPU tests call 3 had no
# time for. The extension, then every generated SM90 GEMM kernel (--all, 14 jobs) in the background; the w8a8 layer tests
# of test_quant_ops_gpu.py start once the extension is built (kernels they need and the generator has not reached yet
# they build themselves, under the cache's file locks); then a second `benchmark.py quant` sample and test_nn_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s17_c4
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site17 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site17:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee -a $OUT/extension.log
( python3 tools/generate_kernels.py --sm 90 --out /tmp/gen17 --compile --all --jobs 14 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_sm90_all.log; \
  echo "kernels at ${SECONDS}s" >> $OUT/kernels_sm90_all.log ) &
timeout 400 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=10 tests/test_quant_ops_gpu.py -k "w8a8_linear_matches" > $OUT/tests_w8a8.log 2>&1
echo "tests (w8a8 layers) rc=$? at ${SECONDS}s: $(grep -E 'passed|failed' $OUT/tests_w8a8.log | tail -n 1)"
wait
echo "kernels: $(tail -n 2 $OUT/kernels_sm90_all.log | tr '\n' ' ')"
if [ $SECONDS -lt 480 ]; then
  timeout 70 python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1; echo "bench rc=$? at ${SECONDS}s"
fi
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_nn_gpu.py > $OUT/tests_nn.log 2>&1
echo "tests (nn) rc=$? at ${SECONDS}s: $(tail -c 200 $OUT/tests_nn.log | tr '\n' ' ')"
cd $OUT && cp bq/quant.md quant.md 2>/dev/null; tar czf all.tgz *.log *.md bq 2>/dev/null; ls
