# Session 23 call 5 (2026-11-27), carry [".whl"]. EMPTY cache: the extension; the block GEMV settings probe
# (probe/probe_b64.py: per-block int8 B = 64 / 128 at M = 16 and 1, chunks per step x warps x PDL x first-wave
# prefetch, against the rule); then the GPU tests of this session's code that need no CUTLASS kernel: the fast
# path, the block GEMV (its CUTLASS comparison builds two kernels), per-block int8, the tiny Llama's block schemes.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s23e
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site23 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site23:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 150 python3 tools/results/h100-2026-11-27/session23/probe/probe_b64.py $OUT/b64.md > $OUT/b64.log 2>&1
echo "b64 probe rc=$? at ${SECONDS}s"; tail -n 3 $OUT/b64.log
timeout $((575 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_block_linear_fast_gpu.py \
  tests/test_blockint8_gpu.py "tests/test_llama_gpu.py::test_tiny_llama_logits_and_cuda_graph_generation[w8a8-int8-block128]" \
  "tests/test_llama_gpu.py::test_tiny_llama_logits_and_cuda_graph_generation[fp8-block128]" tests/test_block_gemv_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR" $OUT/tests.log | head -20
cd $OUT && tar czf all.tgz --remove-files * ; ls
