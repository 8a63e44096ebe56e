# Session 8 call 8 (2026-11-23), carry [".whl"]: final state of main on an EMPTY kernel cache: the quant GPU tests
# (whole file; quant_launch.cuh changed after call 2), the weight-only GPU tests with the fixed fast-path test, the
# variant tests, and the tiny Llama under w4a16 / w8a16.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_empty_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site8 .whl/*.whl
export PYTHONPATH=/tmp/site8:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen8 --compile --jobs 4 --name sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_nobias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py tests/test_weight_only_gpu.py tests/test_wo_variants_gpu.py > $OUT/gpu_tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 4 $OUT/gpu_tests.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests.log | head -20
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k "w4a16 or w8a16" > $OUT/gpu_tests_llama.log 2>&1
echo "llama rc=$? at ${SECONDS}s"; tail -n 2 $OUT/gpu_tests_llama.log
