# Session 17 call 3 (2026-11-26), carry [".whl", "devtmp/s17"]: the final code on an EMPTY kernel cache. The extension
# (quantization kernels now in four units, one per input type + the torch glue) and the default SM90 GEMM set built
# side by side while the harness session17/qt/qt17.cu (rebuilt against the final tree) compares every output byte with
# commit 59b25f1's and times head vs new; then `benchmark.py quant`, the quant-op GPU tests of the row kernels, the
# torch-integration ones (opcheck, no host sync / fullgraph compile / CUDA graphs, streams), and the rest with the time left.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s17_final
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site17 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site17:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --sm 90 --out /tmp/gen17 --compile --jobs 8 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_sm90.log; \
  echo "kernels at ${SECONDS}s" >> $OUT/kernels_sm90.log ) &
timeout 300 ./devtmp/s17/qt17 > $OUT/qt17.log 2>&1; echo "qt17 rc=$? at ${SECONDS}s"
wait
echo "builds at ${SECONDS}s: $(tail -n 1 $OUT/kernels_sm90.log) | $(tail -n 1 $OUT/extension.log)"
timeout 70 python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
SEL="rms_norm or per_group or many_rows or asym_saturates or leading_dims or per_token_and_per_tensor or larger_than_the_grid or nonfinite"
SEL2="opcheck or no_host_sync or other_stream or float32_input"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=8 tests/test_quant_ops_gpu.py -k "$SEL or $SEL2" > $OUT/tests_rows.log 2>&1
echo "tests (row kernels + torch integration) rc=$? at ${SECONDS}s: $(grep -E 'passed|failed' $OUT/tests_rows.log | tail -n 1)"
timeout $((575 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py -k "not ($SEL or $SEL2)" > $OUT/tests_rest.log 2>&1
echo "tests (rest) rc=$? at ${SECONDS}s: $(tail -c 300 $OUT/tests_rest.log | tr '\n' ' ')"
cd $OUT && cp bq/quant.md quant.md 2>/dev/null; tar czf all.tgz *.log *.md gpu.txt bq 2>/dev/null; ls
