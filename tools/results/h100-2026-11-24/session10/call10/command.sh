# Session 10 call 10 (2026-11-24), carry [".whl"], fresh machine, empty kernel cache: after the final review (heuristics imports kernels/gemv at module level; one GPU test renamed to what it asserts)
# (GemvKernel shares KernelLibrary.launch; opcheck test through the GEMV): the GEMV GPU tests, the two CUTLASS
# 64x64 kernels they call built first.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s10_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site10 .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site10:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --out /tmp/gen10 --compile --jobs 4 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 > $OUT/kernels_gemm.log 2>&1
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_gemv_gpu.py > $OUT/gpu_tests_gemv.log 2>&1
echo "gemv tests rc=$? at ${SECONDS}s"; tail -n 1 $OUT/gpu_tests_gemv.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_gemv.log | head
