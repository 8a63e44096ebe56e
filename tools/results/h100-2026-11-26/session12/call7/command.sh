# Session 12 call 7 (2026-11-26), carry [".whl"], fresh machine, empty kernel cache: the extension and commit
# 1781920's builds of scalar/bench_scalar.py's four kernels in the background; the activation test's 30 kernels, the
# four benchmarked ones and the overhead row's tensor x channel kernel with 16 jobs; then tests/test_activation_gpu.py,
# tools/benchmark.py overhead (one-element scales now made outside the timed call) and scalar/bench_scalar.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_c7
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
B=tools/results/h100-2026-11-26/session12/scalar/bench_scalar.py
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
  echo "extension at ${SECONDS}s" >> $OUT/extension.log
  python3 $B $OUT --compile-old > $OUT/compile_old.log 2>&1; echo "old kernels rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
ACT=$(python3 -c "import sys; sys.path.insert(0, 'tests'); import test_activation_gpu as t; print(' '.join('--name ' + n for n in sorted(t.KERNELS)))")
BENCH=$(python3 -c "import sys; sys.argv = ['x', '/tmp']; exec(open('$B').read().split('def old_library')[0]); print(' '.join('--name ' + n for n in NAMES))")
python3 tools/generate_kernels.py --out /tmp/gen7 --compile --jobs 16 $ACT $BENCH --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait; tail -n 2 $OUT/extension.log
timeout $((430 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_activation_gpu.py > $OUT/test_activation_gpu.log 2>&1
echo "test_activation_gpu rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_activation_gpu.log)"
timeout 60 python3 tools/benchmark.py overhead --out $OUT > $OUT/overhead.log 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -A12 us_per_call $OUT/overhead.json
timeout $((590 - SECONDS)) python3 $B $OUT > $OUT/bench_scalar.log 2>&1
echo "bench_scalar rc=$? at ${SECONDS}s"; tail -n 10 $OUT/bench_scalar.log
