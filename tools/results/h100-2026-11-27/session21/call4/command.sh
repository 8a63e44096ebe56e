# Session 21 call 4 (2026-11-27), carry [".whl"]: the committed code (PDL on by default). EMPTY cache: the extension;
# the decode benchmark at M = 4 and 8 (call 3 had M = 1 and 16); then the weight-only and quant-op GPU tests with the
# default switch until the time limit.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s21d
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site21 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site21:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
SH=4x8192x8192,8x8192x8192,4x4096x14336,8x4096x14336,4x14336x4096,8x14336x4096,4x28672x4096,8x28672x4096
timeout 150 python3 tools/benchmark.py decode --no-tiles --shapes $SH --out $OUT/bd > $OUT/bench_decode.log 2>&1
echo "decode bench rc=$? at ${SECONDS}s"
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=10 \
  tests/test_pdl_gpu.py tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py tests/test_quant_ops_gpu.py > $OUT/tests_gpu.log 2>&1
echo "gpu tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_gpu.log)"
grep -E "FAILED|ERROR" $OUT/tests_gpu.log | head
