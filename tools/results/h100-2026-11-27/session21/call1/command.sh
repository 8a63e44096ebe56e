# Session 21 call 1 (2026-11-27), carry [".whl"]: session 20's coherent-load fix on the GPU for the first time. EMPTY
# cache: the extension; tests/test_pdl_gpu.py (a chain of dependent layers eager and replayed 20 times from a CUDA
# graph, PDL off and on); session 20's probe (PDL off / on in one process) with the coherent loads; then with
# CUTLASS_GEMM_PDL=1 the GPU tests of the PDL-launched kernels (weight-only, quant ops, block GEMV, GEMV) until the
# time limit.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s21a
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site21 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site21:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_gpu.py > $OUT/tests_pdl.log 2>&1
echo "pdl tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_pdl.log)"
grep -E "elements differ" $OUT/tests_pdl.log | head
timeout 150 python3 tools/results/h100-2026-11-27/session20/call3/probe_pdl.py $OUT/probe_pdl.md > $OUT/probe_pdl.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
export CUTLASS_GEMM_PDL=1
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=15 \
  tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py tests/test_quant_ops_gpu.py tests/test_block_gemv_gpu.py \
  tests/test_gemv_gpu.py > $OUT/tests_pdl_on.log 2>&1
echo "tests with PDL on rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_pdl_on.log)"
grep -E "FAILED|ERROR" $OUT/tests_pdl_on.log | head
