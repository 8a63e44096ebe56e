# Session 26 call 5 (2026-11-27): call 4's warm machine and cache (/tmp/cgc_s26d): tests/test_pdl_gemm_gpu.py, which
# call 4's `-k fp8_wide` deselected (its first run on an empty cache: call 2).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s26d PYTHONPATH=/tmp/site26:$PWD
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_pdl_gemm_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$?: $(tail -n 1 $OUT/tests.log)"; grep -E "^FAILED|^ERROR" $OUT/tests.log | head -8
