# Session 23 call 7 (2026-11-27), carry [".whl"]: the final code (the extension now also holds block_linear_fast and the
# B = 64 no-prefetch rule). EMPTY cache: the extension; a regression pass over the extension's other GPU tests:
# activation quantization (session 18's selection), weight-only, weight-only variants.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s23g
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site23 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site23:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
SEL="rms_norm or per_group or many_rows or asym_saturates or leading_dims or per_token_and_per_tensor or larger_than_the_grid or nonfinite or each_form"
SEL2="opcheck or no_host_sync or other_stream or float32_input"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py -k "$SEL or $SEL2" > $OUT/tests_quant.log 2>&1
echo "quant tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_quant.log)"
timeout $((470 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_gpu.py tests/test_wo_variants_gpu.py > $OUT/tests_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_wo.log)"
grep -hE "FAILED|ERROR" $OUT/tests_quant.log $OUT/tests_wo.log | head -20
cd $OUT && tar czf all.tgz --remove-files * ; ls
