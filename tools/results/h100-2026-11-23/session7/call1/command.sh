# Session 7 call 1 (2026-11-23), carry [".whl", "devtmp/qt"]: the per-tensor quant kernel's shared-memory part
# (harness session7/qt/qt.cu, built on the CPU machine: nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90),
# the blockwise fp8 tile / scale_a-layout sweep, the Int8Conv2d compile / CUDA-graph re-test (session6/call6).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
R=tools/results/h100-2026-11-23/session7/call1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1 ) &
B=sm90_blockwise_e4m3_bf16
BW="${B}_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0,${B}_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0,${B}_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0,${B}_sfamn_t128x128x128_c2x1x1_cooperative_persistent_s0,${B}_sfak_t128x128x128_c2x1x1_cooperative_persistent_s0,${B}_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0,${B}_sfamn_t64x128x128_c1x1x1_pingpong_persistent_s0,${B}_sfamn_t128x256x128_c1x1x1_cooperative_persistent_s0,${B}_sfamn_t64x128x128_c1x2x1_pingpong_persistent_s0"
( python3 tools/generate_kernels.py --blockwise --compile --jobs 9 $(echo $BW | tr ',' '\n' | sed 's/^/--name /') 2>&1 | grep -v "^nvcc:" > $OUT/kernels_blockwise.log ) &
( python3 tools/generate_kernels.py --conv --compile --jobs 3 --name sm90_conv2d_fprop_int8_bf16_relu_t128x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu_t128x64x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu_t64x128x64_c1x1x1_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_conv.log ) &
( python3 tools/generate_kernels.py --compile --jobs 3 --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_fp8.log ) &
./devtmp/qt/qt > $OUT/qt.log 2>&1; echo "qt rc=$? at ${SECONDS}s"
wait; echo "builds at ${SECONDS}s"
CUTLASS_GEMM_JIT=0 timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_conv_int8_gpu.py -k "compile_fullgraph or typed_errors" > $OUT/gpu_tests_conv.log 2>&1
echo "conv tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_conv.log
CUTLASS_GEMM_JIT=0 timeout 200 python3 tools/benchmark.py blockwise --shapes 16x7168x2048,256x7168x2048,4096x7168x2048,2048x8192x8192,8192x8192x8192 --choices $BW --out $OUT > $OUT/bench_blockwise.log 2>&1
echo "blockwise bench rc=$? at ${SECONDS}s"
CUTLASS_GEMM_JIT=0 timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockwise_gpu.py -k "every_element or column_major or per_group_feeds" > $OUT/gpu_tests_blockwise.log 2>&1
echo "blockwise tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_blockwise.log
