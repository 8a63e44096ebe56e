# Session 6 call 3 (2026-11-23), from the repository root with carry [".whl"]:
#   bash tools/results/h100-2026-11-23/session6/call3/command.sh
# After the SM90 selection change (256x128x128 cooperative c1x2 above M = 256), on an empty kernel cache:
# 1. every variant x output dtype of the new tile (token x channel) against float64 (test_ops_gpu large shapes);
# 2. the mixed-input GPU tests with the format-bounded exact-weight check;
# 3. tools/benchmark.py shapes (int8 / fp8 vs _int_mm, _scaled_mm, bf16) on 16 shapes;
# 4. tools/benchmark.py weight_only at M = 64..4096 with the CUTLASS mixed-input rows;
# 5. tools/benchmark.py layer at 2048x8192x8192 (the W8A8 layers on the new tile).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > $OUT/device.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension done at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --mixed --compile --jobs 4 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log; echo "mixed kernels at ${SECONDS}s" >> $OUT/kernels_mixed.log ) &
python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 12 --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_e4m3_f16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_e4m3_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_nobias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_nobias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_nobias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_nobias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_per_token_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_f16_scaled_azp_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_f16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_tensor_tensor_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels rc=$? at ${SECONDS}s"; wait; tail -n 2 $OUT/kernels.log $OUT/kernels_mixed.log $OUT/extension.log
export CUTLASS_GEMM_JIT=0
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_ops_gpu.py -k "large_shapes and not 14336" tests/test_weight_only_mixed_gpu.py > $OUT/gpu_tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests.log
timeout 130 python3 tools/benchmark.py shapes --out $OUT --shapes 16x8192x8192,128x8192x8192,512x8192x8192,2048x8192x8192,8192x8192x8192,16x14336x4096,128x14336x4096,512x14336x4096,2048x14336x4096,8192x14336x4096,16x4096x14336,128x4096x14336,512x4096x14336,2048x4096x14336,8192x4096x14336,4096x4096x4096 > $OUT/bench_shapes.log 2>&1
echo "shapes rc=$? at ${SECONDS}s"
timeout 100 python3 tools/benchmark.py weight_only --out $OUT --shapes 64x8192x8192,256x8192x8192,2048x8192x8192,4096x8192x8192,256x4096x14336,2048x4096x14336 > $OUT/bench_wo.log 2>&1
echo "weight_only rc=$? at ${SECONDS}s"
timeout $((585 - SECONDS)) python3 tools/benchmark.py layer --out $OUT --shapes 2048x8192x8192 > $OUT/bench_layer.log 2>&1
echo "layer rc=$? at ${SECONDS}s"
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
