# Session 22 call 7 (2026-11-27), carry [".whl"]: the final code (the spread arithmetic moved to wo_spread.h, same
# formula). EMPTY cache: the extension; the weight-only benchmark at M = 16 (three shapes); the PDL and weight-only
# variant GPU tests until the time limit. $OUT packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s22g
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site22 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site22:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 60 python3 tools/benchmark.py weight_only --shapes 16x8192x8192,16x4096x14336,16x28672x4096 --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
grep -E "w4a16 g128 \||w8a16 \|" $OUT/bench_wo.log | head -6
timeout $((230 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_gpu.py tests/test_wo_variants_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR" $OUT/tests.log | head
cd $OUT && tar czf all.tgz --remove-files * ; ls
