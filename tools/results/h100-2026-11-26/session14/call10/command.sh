# Session 14 call 10 (2026-11-26), carry [".whl"], empty kernel cache: the torch extension gained a source this session
# (wo_mixed_fast.cpp, bound in fast_path.cpp); the other GPU files built on the extension: quantization ops, the
# W8A8 decode GEMV, the small-M weight-only variants, the per-block int8 GEMM (with the SM90 default GEMM set).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14j
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen90 --compile --jobs 12 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_default.log
echo "default set at ${SECONDS}s: $(tail -n 1 $OUT/kernels_default.log)"
wait; tail -n 1 $OUT/extension.log
for f in test_quant_ops_gpu test_gemv_gpu test_wo_variants_gpu test_blockint8_gpu; do
  timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/$f.py > $OUT/$f.log 2>&1
  echo "$f rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/$f.log)"
done
