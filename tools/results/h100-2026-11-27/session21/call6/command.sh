# Session 21 call 6 (2026-11-27), carry [".whl"]: the committed code with call 5's variant table. EMPTY cache: the
# extension; the weight-only benchmark at M = 1 / 4 / 8 / 16 on the three benchmark shapes; then the weight-only and
# wo-variant GPU tests until the time limit.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s21f
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site21 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site21:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
SW=1x8192x8192,4x8192x8192,8x8192x8192,16x8192x8192,1x28672x4096,4x28672x4096,8x28672x4096,16x28672x4096
SW=$SW,1x4096x14336,4x4096x14336,8x4096x14336,16x4096x14336
timeout 200 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
grep -E "w4a16 g128 \||w8a16 \|" $OUT/bench_wo.log | head -30
timeout $((420 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_gpu.py tests/test_wo_variants_gpu.py > $OUT/tests_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_wo.log)"
grep -E "FAILED|ERROR" $OUT/tests_wo.log | head
