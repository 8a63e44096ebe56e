# Session 20 call 2 (2026-11-27), carry [".whl"]: the prefetch before the grid-dependency wait sized from one byte
# budget (pdl.cuh, 8 MB over the CTAs resident at once) after call 1's depth sweep. EMPTY cache: the extension;
# probe_pdl.py (PDL off / on in one process, budgets 0 / 4 / 16 MB); then GPU tests of the changed kernels.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s20b
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site20 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site20:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
D=tools/results/h100-2026-11-27/session20/call2
timeout 300 python3 $D/probe_pdl.py $OUT/probe_pdl.md > $OUT/probe_pdl.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=15 tests/test_wo_variants_gpu.py tests/test_quant_ops_gpu.py tests/test_block_gemv_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR" $OUT/tests.log | head
