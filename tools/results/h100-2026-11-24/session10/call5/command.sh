# Session 10 call 5 (2026-11-24), carry [".whl"], fresh machine, empty kernel cache, on the final GEMV (call 4's
# double-buffered kernel not adopted; tests' bounds: float32 epilogue terms, CUTLASS-served fp8 at test_ops_gpu's
# tolerance): (1) GEMV GPU tests; (2) the quant GPU test file; (3) tiny Llama (with the blockwise kernel call 3
# lacked); (4) tools/benchmark.py decode; (5) the layer benchmark at decode shapes. Extension, the 23 W8A8 GEMM
# kernels and the blockwise kernel built first.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s10_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site10 .whl/*.whl
export PYTHONPATH=/tmp/site10:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen10 --compile --jobs 12 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_nobias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log; echo "gemm kernels at ${SECONDS}s" >> $OUT/kernels_gemm.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen10b --blockwise --compile --name sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0 > $OUT/kernels_blockwise.log 2>&1; echo "blockwise kernel at ${SECONDS}s" >> $OUT/kernels_blockwise.log ) &
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log $OUT/kernels_blockwise.log
export CUTLASS_GEMM_JIT=0
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_gemv_gpu.py > $OUT/gpu_tests_gemv.log 2>&1
echo "gemv tests rc=$? at ${SECONDS}s"; tail -n 1 $OUT/gpu_tests_gemv.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_gemv.log | head
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py > $OUT/gpu_tests_quant.log 2>&1
echo "quant tests rc=$? at ${SECONDS}s"; tail -n 1 $OUT/gpu_tests_quant.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_quant.log | head
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py > $OUT/gpu_tests_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s"; tail -n 1 $OUT/gpu_tests_llama.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_llama.log | head
mkdir -p $OUT/bd $OUT/bl
timeout 100 python3 tools/benchmark.py decode --out $OUT/bd > $OUT/bench_decode.log 2>&1
echo "bench decode rc=$? at ${SECONDS}s"; grep "^|" $OUT/bench_decode.log | head -30
timeout $((585 - SECONDS)) python3 tools/benchmark.py layer --shapes 1x8192x8192,16x8192x8192,16x28672x4096 --out $OUT/bl > $OUT/bench_layer.log 2>&1
echo "bench layer rc=$? at ${SECONDS}s"; grep "^|" $OUT/bench_layer.log | head -24
cd $OUT && tar czf all.tgz *.log bd bl && rm -rf bd bl
