# Session 14 call 8 (2026-11-26), carry [".whl"]: EMPTY kernel cache, the final tree (commit of this file's parent):
# the 36-kernel mixed-input set and the extension built at once (what a new user's first prefill and decode need),
# the SM90 default GEMM set, then the weight-only mixed, weight-only, weight-only conv and tiny Llama GPU tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14h
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR/sm90 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen_mx --compile --jobs 16 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "mixed set at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)"
wait; tail -n 1 $OUT/extension.log
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen90 --compile --jobs 16 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_default.log
echo "default set at ${SECONDS}s: $(tail -n 1 $OUT/kernels_default.log)"
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout 150 $T tests/test_weight_only_mixed_gpu.py > $OUT/test_weight_only_mixed_gpu.log 2>&1
echo "mixed rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_weight_only_mixed_gpu.log)"
timeout 120 $T tests/test_weight_only_gpu.py > $OUT/test_weight_only_gpu.log 2>&1
echo "weight_only rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_weight_only_gpu.log)"
timeout 60 $T tests/test_conv_gpu.py -k weight_only > $OUT/test_conv_wo.log 2>&1
echo "conv wo rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_conv_wo.log)"
timeout $((590 - SECONDS)) $T tests/test_llama_gpu.py > $OUT/test_llama_gpu.log 2>&1
echo "llama rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_llama_gpu.log)"
