# Session 19 call 13 (2026-11-27), carry [".whl"]: the final code (WarpAcc::zero, the dead WsShape::kMT8 removed: PTX of
# every weight-only kernel identical to ce7327a's, nvcc 13.0 -arch=sm_90) on an EMPTY cache: the extension, the
# weight-only GPU tests with the new long-K test of the direct variants (plan-added splits at K = 16384, wo_select's
# fallback at K = 65536), the tiny Llama under w4a16 / w8a16.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19j
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site19 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site19:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 250 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_wo.log)"
grep -E "FAILED|ERROR" $OUT/tests_wo.log | head
timeout $((580 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k "w4a16 or w8a16 or float_model" > $OUT/test_llama_gpu.log 2>&1
echo "llama rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_llama_gpu.log)"
