# Session 20 call 3 (2026-11-27), carry [".whl"]: the final kernels (weight-only int8 mma / stream kernels back to
# plain launches after call 2). EMPTY cache: the extension; probe_pdl.py (PDL off / on in one process); the PDL GPU
# tests (a chain of dependent layers eager and in a CUDA graph, a weight rewritten right before the call) and the
# graph / compile / opcheck tests of the GEMV, quant, block-GEMV and weight-only ops.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s20c
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site20 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site20:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_gpu.py > $OUT/tests_pdl.log 2>&1
echo "pdl tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_pdl.log)"
D=tools/results/h100-2026-11-27/session20/call3
timeout 120 python3 $D/probe_pdl.py $OUT/probe_pdl.md > $OUT/probe_pdl.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
timeout $((430 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=10 \
  "tests/test_gemv_gpu.py::test_graph_capture_and_compile_through_the_gemv" "tests/test_gemv_gpu.py::test_opcheck_through_the_gemv" \
  "tests/test_quant_ops_gpu.py::test_no_host_sync_compile_and_cuda_graph" "tests/test_quant_ops_gpu.py::test_opcheck_cuda" \
  "tests/test_weight_only_gpu.py::test_opcheck_cuda" "tests/test_weight_only_gpu.py::test_layer_compile_cuda_graph_no_sync" \
  "tests/test_block_gemv_gpu.py::test_fp8_layer_decode_compile_graph_no_sync_opcheck" > $OUT/tests_graph.log 2>&1
echo "graph tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_graph.log)"
grep -E "FAILED|ERROR" $OUT/tests_pdl.log $OUT/tests_graph.log | head
