# Session 10 call 3 (2026-11-24), carry [".whl"], fresh machine, empty kernel cache, after call 2's measurements:
# warps-per-CTA rule and heuristics.GEMV rows (e4m3 M 9..16 only up to N = 4096) from call 2, the ring variant
# moved to the harness, test bounds (float32 epilogue roundings; CUTLASS fp8 wgmma accumulation). (1) harness with
# a read-only stream ceiling while the extension and the 23 W8A8 GEMM kernels build; (2) GEMV GPU tests; (3)
# tools/benchmark.py decode; (4) the quant GPU test file; (5) the layer benchmark at decode shapes; (6) tiny Llama.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s10_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site10 .whl/*.whl
export PYTHONPATH=/tmp/site10:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen10 --compile --jobs 12 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_nobias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log; echo "gemm kernels at ${SECONDS}s" >> $OUT/kernels_gemm.log ) &
nvcc -std=c++17 -O3 -arch=sm_90 -I cutlass_gemm/runtime/csrc tools/results/h100-2026-11-24/session10/gemv/gemv_bench.cu -o /tmp/gemv_bench && /tmp/gemv_bench > $OUT/gemv_bench.log 2>&1
echo "harness rc=$? at ${SECONDS}s"; head -n 4 $OUT/gemv_bench.log; tail -n 1 $OUT/gemv_bench.log
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_gemv_gpu.py > $OUT/gpu_tests_gemv.log 2>&1
echo "gemv tests rc=$? at ${SECONDS}s"; tail -n 1 $OUT/gpu_tests_gemv.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_gemv.log | head
mkdir -p $OUT/bd $OUT/bl
timeout 100 python3 tools/benchmark.py decode --out $OUT/bd > $OUT/bench_decode.log 2>&1
echo "bench decode rc=$? at ${SECONDS}s"; grep "^|" $OUT/bench_decode.log | head -30
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py > $OUT/gpu_tests_quant.log 2>&1
echo "quant tests rc=$? at ${SECONDS}s"; tail -n 1 $OUT/gpu_tests_quant.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_quant.log | head
timeout 150 python3 tools/benchmark.py layer --shapes 1x8192x8192,16x8192x8192,16x28672x4096 --out $OUT/bl > $OUT/bench_layer.log 2>&1
echo "bench layer rc=$? at ${SECONDS}s"; grep "^|" $OUT/bench_layer.log | head -20
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py > $OUT/gpu_tests_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s"; tail -n 1 $OUT/gpu_tests_llama.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_llama.log | head
cd $OUT && tar czf all.tgz *.log bd bl && rm -rf bd bl
