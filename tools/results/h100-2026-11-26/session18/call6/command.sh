# Session 18 call 6 (2026-11-26), carry [".whl", "devtmp/s18"]: the final code (row kernels of call 2 + the two-pass
# per-tensor form, the cluster form removed) on an EMPTY kernel cache. Harness qt18f (session18/qt/qt18.cu rebuilt
# against the final tree: every output byte of every mode against ee39c0f's, then times); the extension builds
# meanwhile; then `benchmark.py quant` and the row-kernel, per-tensor and torch-integration GPU tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s18f
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site18 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site18:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
timeout 300 ./devtmp/s18/qt18f > $OUT/qt18f.log 2>&1; echo "qt18f rc=$? at ${SECONDS}s"
wait
echo "extension: $(tail -n 1 $OUT/extension.log)"
timeout 90 python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
SEL="rms_norm or per_group or many_rows or asym_saturates or leading_dims or per_token_and_per_tensor or larger_than_the_grid or nonfinite or each_form"
SEL2="opcheck or no_host_sync or other_stream or float32_input"
L=$((560 - SECONDS)); [ $L -lt 10 ] && L=10
timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=8 tests/test_quant_ops_gpu.py -k "$SEL or $SEL2" > $OUT/tests_rows.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(grep -E 'passed|failed' $OUT/tests_rows.log | tail -n 1)"
cp $OUT/bq/quant.md $OUT/quant.md 2>/dev/null; ls $OUT
