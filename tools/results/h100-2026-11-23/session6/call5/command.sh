# Session 6 call 5 (2026-11-23), from the repository root with carry [".whl", "devtmp/blockint8"]:
#   bash tools/results/h100-2026-11-23/session6/call5/command.sh
# First GPU run of the three families merged this session, on an empty kernel cache:
# per-block int8 (harness checks + timings, GPU tests, bench), blockwise fp8 (17 kernels, GPU tests, bench),
# int8 implicit-GEMM conv (ResNet-50's 12 bf16 kernels, kernel tests, 3x3 batch-32 bench).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > $OUT/device.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension done at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --blockwise --compile --jobs 6 2>&1 | grep -v "^nvcc:" > $OUT/kernels_blockwise.log; echo "blockwise kernels at ${SECONDS}s" >> $OUT/kernels_blockwise.log ) &
( python3 tools/generate_kernels.py --conv --compile --resnet --jobs 5 2>&1 | grep -v "^nvcc:" > $OUT/kernels_conv.log; echo "conv kernels at ${SECONDS}s" >> $OUT/kernels_conv.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 2 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log; echo "gemm kernels at ${SECONDS}s" >> $OUT/kernels_gemm.log ) &
timeout 60 devtmp/blockint8/bb check > $OUT/bb_check.log 2>&1; echo "bb check rc=$? at ${SECONDS}s"; grep -E "CHECKS" $OUT/bb_check.log
timeout 90 devtmp/blockint8/bb time > $OUT/bb_time.log 2>&1; echo "bb time rc=$? at ${SECONDS}s"; grep -c TIME $OUT/bb_time.log
wait; echo "builds done at ${SECONDS}s"; tail -qn 2 $OUT/kernels_*.log $OUT/extension.log
export CUTLASS_GEMM_JIT=0
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockint8_gpu.py tests/test_blockwise_gpu.py > $OUT/gpu_tests_block.log 2>&1
echo "block tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/gpu_tests_block.log
timeout 80 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_conv_int8_gpu.py -k "not resnet" > $OUT/gpu_tests_conv.log 2>&1
echo "conv tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/gpu_tests_conv.log
timeout 50 python3 tools/benchmark.py blockwise --quick --out $OUT > $OUT/bench_blockwise.log 2>&1; echo "blockwise bench rc=$? at ${SECONDS}s"
timeout 40 python3 tools/bench_blockint8.py --quick > $OUT/bench_blockint8.log 2>&1; echo "blockint8 bench rc=$? at ${SECONDS}s"
timeout $((505 - SECONDS)) python3 tools/benchmark.py conv --quick --out $OUT > $OUT/bench_conv.log 2>&1; echo "conv bench rc=$? at ${SECONDS}s"
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
