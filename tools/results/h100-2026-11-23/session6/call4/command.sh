# Session 6 call 4 (2026-11-23), from the repository root with carry [".whl"]:
#   bash tools/results/h100-2026-11-23/session6/call4/command.sh
# After heuristics.NARROW and plans keyed by (M, N) (Python and the C++ fast path), on an empty kernel cache:
# 1. test_ops_gpu: every variant on the large shapes (bf16 out), the table-follows test, the C++ fast path
#    against the Python path for scaled_bias (M 1..1000 at N = 256: the NARROW tile at M = 1000);
# 2. the mixed-input tests for bf16 (the format-bounded exact-weight check);
# 3. tools/benchmark.py shapes on the narrow shapes and neighbours; 4. weight_only with the mixed rows, M > 64.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > $OUT/device.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension done at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --mixed --compile --jobs 4 --name sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int4_zp_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int8_zp_t128x128x64_c1x1x1_cooperative_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log; echo "mixed kernels at ${SECONDS}s" >> $OUT/kernels_mixed.log ) &
python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 12 --name sm90_e4m3_bf16_scaled_bias_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_nobias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_nobias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_nobias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_nobias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_azp_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels rc=$? at ${SECONDS}s"; wait; tail -n 2 $OUT/kernels.log $OUT/kernels_mixed.log $OUT/extension.log
export CUTLASS_GEMM_JIT=0
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_ops_gpu.py -k "(large_shapes and out_dtype0) or follows_the_table or (fast_path and scaled_bias)" > $OUT/gpu_tests_ops.log 2>&1
echo "ops tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_ops.log
timeout 60 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py -k "dtype0 or layer or strided" > $OUT/gpu_tests_mixed.log 2>&1
echo "mixed tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_mixed.log
timeout 90 python3 tools/benchmark.py shapes --out $OUT --shapes 512x4096x14336,512x4096x4096,1024x4096x4096,1024x4096x14336,512x14336x4096,512x8192x8192,128x8192x8192,16x14336x4096,2048x4096x4096 > $OUT/bench_shapes.log 2>&1
echo "shapes rc=$? at ${SECONDS}s"; grep "^|" $OUT/bench_shapes.log | head -14
timeout $((330 - SECONDS)) python3 tools/benchmark.py weight_only --out $OUT --shapes 256x8192x8192,2048x8192x8192,4096x8192x8192,256x4096x14336,2048x4096x14336 > $OUT/bench_wo.log 2>&1
echo "weight_only rc=$? at ${SECONDS}s"; grep "^|" $OUT/bench_wo.log | head -40
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
