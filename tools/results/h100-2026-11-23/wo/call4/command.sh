# call 4 (2026-11-23, session 4): the weight-only kernels without the L2 cache hint: harness checks, extension
# build, weight-only GPU tests and the tiny Llama under w4a16 / w8a16, weight-only benchmark (quick).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD CUTLASS_GEMM_CACHE_DIR=/tmp/cgc4
LIBS=$(python3 -c "import glob, nvidia; print(':'.join(d for p in nvidia.__path__ for d in glob.glob(p + '/*/lib')))")
LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 45 devtmp/wb/wb checks > $OUT/wb_checks.log 2>&1; echo "wb rc=$? at ${SECONDS}s" | tee -a $OUT/wb_checks.log
grep -E "^(CHECKS|FAIL)" $OUT/wb_checks.log | head -5
( t0=$(date +%s); python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" && echo "extension ready in $(( $(date +%s) - t0 )) s" ) > $OUT/extension.log 2>&1; tail -1 $OUT/extension.log
timeout 90 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_gpu.py "tests/test_llama_gpu.py::test_tiny_llama_logits_and_cuda_graph_generation[w4a16]" "tests/test_llama_gpu.py::test_tiny_llama_logits_and_cuda_graph_generation[w8a16]" -s > $OUT/gpu_tests.log 2>&1; echo "tests rc=$? at ${SECONDS}s"
grep -E "passed|failed" $OUT/gpu_tests.log | tail -2; grep -E "^FAILED|w4a16:|w8a16:" $OUT/gpu_tests.log | head -12
timeout 40 python3 tools/benchmark.py weight_only --quick --out $OUT > $OUT/bench_wo.log 2>&1; echo "wo rc=$? at ${SECONDS}s"
grep -E "^\|" $OUT/weight_only.md | head -30
