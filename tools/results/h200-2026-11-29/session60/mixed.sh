# Session 60: the layer tests of tests/test_weight_only_mixed_gpu.py (the ones this session changed: capture and replay
# through tests/gpu_helpers.py), after suite.sh on the same warm machine (its kernel cache and wheels), their mixed-input
# kernels built on first use. Run from the repository root: bash tools/results/h200-2026-11-29/session60/mixed.sh
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s60 PYTHONPATH=/tmp/site60:$PWD
echo "kernel cache before: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries" | tee $OUT/mixed_cache_before.txt
python3 -m pytest -m gpu -q -rs tests/test_weight_only_mixed_gpu.py -k layer 2>&1 | tail -30 | tee $OUT/mixed.log
echo "pytest rc=${PIPESTATUS[0]} at ${SECONDS}s" | tee -a $OUT/mixed.log
echo "kernel cache after: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries" | tee $OUT/mixed_cache_after.txt
