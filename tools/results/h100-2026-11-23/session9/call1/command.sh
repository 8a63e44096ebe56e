# Session 9 call 1 (2026-11-23), carry [".whl", "devtmp/qt9"], fresh machine, empty kernel cache: (1) the quant kernels
# with packed 16-bit RMSNorm arithmetic and no saturation where the scale comes from the group's own absmax, checked
# byte for byte and timed by the harness (session9/qt/qt9.cu, built on the CPU machine: nvcc -std=c++17 -O3
# -gencode=arch=compute_90,code=sm_90), also its row-kernel residency sweep (`qt9 rows`); (2) the quant GPU tests
# against the float64/torch reference (the 18 W8A8 GEMM kernels its layer tests call prebuilt first); (3) tools/benchmark.py quant (with the same-size-copy column).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s9_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site9 .whl/*.whl
export PYTHONPATH=/tmp/site9:$PWD
which ncu nsys cuobjdump > $OUT/tools.txt 2>&1; ls /usr/local/cuda/bin >> $OUT/tools.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen9 --compile --jobs 10 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log; echo "gemm kernels at ${SECONDS}s" >> $OUT/kernels_gemm.log ) &
./devtmp/qt9/qt9 > $OUT/qt9.log 2>&1; echo "qt9 rc=$? at ${SECONDS}s"; grep -E "CHECKS|MISMATCH|differ" $OUT/qt9.log | head
./devtmp/qt9/qt9 rows > $OUT/qt9_rows.log 2>&1; echo "qt9 rows rc=$? at ${SECONDS}s"; grep -E "CHECKS" $OUT/qt9_rows.log
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py > $OUT/gpu_tests_quant.log 2>&1
echo "quant tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_quant.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_quant.log | head
mkdir -p $OUT/bq
timeout $((580 - SECONDS)) python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench quant rc=$? at ${SECONDS}s"
cd $OUT && tar czf all.tgz *.log *.txt bq && rm -rf bq
