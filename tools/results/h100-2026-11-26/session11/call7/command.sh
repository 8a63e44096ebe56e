# Session 11 call 7: call 6 ran on a fresh machine (call 5's was gone; its cache with it) and spent its 600 s on the
# extension and the extra, blockwise, conv and mixed sets; here (call 6's machine if still held): the SM90 default set,
# then the GPU test files in order (full/run_tests.sh) while time is left.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_full
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site11 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site11:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( time timeout 500 python3 tools/generate_kernels.py --sm 90 --compile --all --jobs 16 ) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_default.log
echo "default set at ${SECONDS}s: $(grep -E compiled $OUT/kernels_default.log)"; wait; tail -n 1 $OUT/extension.log
bash tools/results/h100-2026-11-26/session11/full/run_tests.sh $OUT 45
