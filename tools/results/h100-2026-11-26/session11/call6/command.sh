# Session 11 call 6 (warm machine of call 5, its cache): the tests' extra kernels not yet built, the --blockwise and
# --mixed sets, then the GPU test files in order (full/run_tests.sh; JIT on: a kernel still missing is built on first
# use, as a new user's would be) while time is left.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_full
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site11 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site11:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s"
NAMES=$(python3 tools/results/h100-2026-11-26/session11/full/kernels.py)
python3 tools/generate_kernels.py --out /tmp/gen_extra --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels_extra.log
echo "extra at ${SECONDS}s: $(tail -n 1 $OUT/kernels_extra.log)"
python3 tools/generate_kernels.py --out /tmp/gen_bw --blockwise --compile --jobs 16 2>&1 | grep -v "^nvcc:" > $OUT/kernels_blockwise.log
echo "blockwise at ${SECONDS}s: $(tail -n 1 $OUT/kernels_blockwise.log)"
python3 tools/generate_kernels.py --out /tmp/gen_cv --conv --compile --jobs 16 $(python3 tools/results/h100-2026-11-26/session11/full/kernels.py --conv) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_conv.log
echo "conv at ${SECONDS}s: $(tail -n 1 $OUT/kernels_conv.log)"
python3 tools/generate_kernels.py --out /tmp/gen_mx --mixed --compile --jobs 16 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "mixed at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)"
bash tools/results/h100-2026-11-26/session11/full/run_tests.sh $OUT 60
