# call 4 (2026-11-23, session 5): the activation kernels of tests/test_activation_gpu.py (24, built on the CPU
# machine with `tools/generate_kernels.py --compile --name ...` into devtmp/cgc_act: same nvcc 13.0.88 and
# CUTLASS wheel, so the same cache keys) seeded into the cache; the token x channel bf16 kernels of the
# default set and the extension built here; activation, weight-only and tiny-Llama GPU tests; benchmarks
# (quant, layer --quick, weight_only --quick) and the demo.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
rm -rf /tmp/cgc && mkdir -p /tmp/cgc && cp -r devtmp/cgc_act/. /tmp/cgc/ && ls /tmp/cgc | wc -l
KERNELS=subset BENCH= timeout 300 bash tools/gpu_session.sh $OUT tests -p no:cacheprovider -k "test_activation_gpu or test_weight_only_gpu or w4a16 or w8a16 or test_one_row_with_a_scalar_scale_a" -s > $OUT/session_stdout.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; cat $OUT/kernels.log; tail -1 $OUT/extension.log
grep -E "passed|failed" $OUT/gpu_tests.log | tail -2; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests.log | head -20
export PYTHONPATH=/tmp/site:$PWD
grep -E "w4a16:|w8a16:" $OUT/gpu_tests.log | head -4
timeout $((560 - SECONDS)) python3 tools/benchmark.py layer --quick --out $OUT > $OUT/bench_layer.log 2>&1; echo "layer rc=$? at ${SECONDS}s"; tail -12 $OUT/layer.md
timeout $((570 - SECONDS)) python3 tools/benchmark.py weight_only --quick --out $OUT > $OUT/bench_wo.log 2>&1; echo "wo rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/weight_only.md | head -30
timeout $((580 - SECONDS)) python3 tools/demo.py > $OUT/demo.log 2>&1; echo "demo rc=$? at ${SECONDS}s"; tail -12 $OUT/demo.log
timeout $((590 - SECONDS)) python3 tools/benchmark.py quant --out $OUT > $OUT/bench_quant.log 2>&1; echo "quant rc=$? at ${SECONDS}s"; grep -E "^\| (16|2048) \| (4096|8192) \| quantize_per_token" $OUT/quant.md
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
