# Session 9 call 5 (2026-11-23), carry [".whl"], fresh machine, empty kernel cache: after the per-group
# one-CTA-per-row launch (a harness knob, never taken by default) was removed from quant_launch.cuh: (1) the whole
# quant GPU test file, its 23 W8A8 GEMM kernels prebuilt first; (2) tools/benchmark.py quant.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s9_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site9 .whl/*.whl
export PYTHONPATH=/tmp/site9:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen9 --compile --jobs 10 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_nobias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log; echo "gemm kernels at ${SECONDS}s" >> $OUT/kernels_gemm.log ) &
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py > $OUT/gpu_tests_quant.log 2>&1
echo "quant tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_quant.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_quant.log | head
mkdir -p $OUT/bq
timeout $((585 - SECONDS)) python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench quant rc=$? at ${SECONDS}s"
cd $OUT && tar czf all.tgz *.log bq && rm -rf bq
