# Session 20 call 1 (2026-11-27), carry [".whl"]: programmatic dependent launch (pdl.cuh) in the extension's GEMV,
# weight-only and row-quant kernels. EMPTY cache: the extension; probe_pdl.py (PDL off / on in one process, prefetch
# depths); the weight-only GPU tests and the GEMV / quant-op GPU tests in the time left.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s20a
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site20 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site20:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
D=tools/results/h100-2026-11-27/session20/call1
timeout 300 python3 $D/probe_pdl.py $OUT/probe_pdl.md > $OUT/probe_pdl.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider -x tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py tests/test_quant_ops_gpu.py tests/test_gemv_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR" $OUT/tests.log | head
