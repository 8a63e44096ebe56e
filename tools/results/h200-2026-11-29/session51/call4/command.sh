# Session 51 call 4 (kind nvidia-h200), right after call 3 on the same warm machine: its kernel cache (/tmp/cgc51c,
# built from empty in call 3) and extension reused; the working tree with the fp8 allowance of
# test_w8a8_linear_long_k_rows_take_the_wide_tile fixed (1% of the largest output, as test_ops_gpu). Output (from the
# run tool): test_quant_ops_gpu.py 230 passed in 26.65 s (JIT off); test_gemv_gpu.py 23 passed in 15.84 s.
export PYTHONPATH=/tmp/site51:$PWD CUTLASS_GEMM_CACHE_DIR=/tmp/cgc51c PYTHONUNBUFFERED=1; ls $CUTLASS_GEMM_CACHE_DIR | head -3; SECONDS=0; T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"; CUTLASS_GEMM_JIT=0 timeout 200 $T tests/test_quant_ops_gpu.py 2>&1 | tail -3; echo "at $SECONDS s"; timeout 330 $T tests/test_gemv_gpu.py 2>&1 | tail -4; echo "at $SECONDS s"
