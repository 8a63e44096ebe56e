# Session 12 call 2 (2026-11-26), carry [".whl"], fresh machine, EMPTY kernel cache: the torch extension, then (in the
# background) tests/test_quant_gpu.py (RMSNorm's first pass without the input absmax); the SM90 default set (128
# kernels, GEMM launcher ABI 3: scale_flags, dynamic scale broadcast) with 16 jobs; then the GPU test files the change
# touches, in order (full/run_tests.sh; JIT on), while time is left. Call 3 continues on the same machine.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_full
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
  echo "extension at ${SECONDS}s" >> $OUT/extension.log
  mkdir -p /tmp/full_s12
  timeout 300 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_gpu.py > /tmp/full_s12/test_quant_gpu.log 2>&1
  echo "test_quant_gpu rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen90 --compile --all --jobs 16 2>&1 | grep -v "^nvcc:" > $OUT/kernels_default.log
echo "default set at ${SECONDS}s: $(tail -n 1 $OUT/kernels_default.log)"
wait; cat $OUT/extension.log | tail -n 2; tail -n 3 /tmp/full_s12/test_quant_gpu.log
bash tools/results/h100-2026-11-26/session12/full/run_tests.sh $OUT 45 $SECONDS
