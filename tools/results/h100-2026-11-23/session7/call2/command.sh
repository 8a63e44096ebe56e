# Session 7 call 2 (2026-11-23), carry [".whl"]: the int8 conv after the host-cost work (plan cache; benchmark GPU
# time from CUDA-graph replay beside eager wall clock), its whole GPU test file (21 conv kernels, bf16 + f16, none /
# relu / relu6) incl. ResNet-50 at batch 8, the conv benchmark (3x3 batch 32 + all rows + ResNet-50 at batch 32),
# and the per-group quant kernel's column-major scale output.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1 ) &
( python3 tools/generate_kernels.py --conv --compile --jobs 11 $(python3 tools/conv_kernels_needed.py all --args) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_conv.log ) &
G="sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_bf16_scaled_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8 sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 sm90_int8_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 sm90_int8_bf16_scaled_bias_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8"
( python3 tools/generate_kernels.py --compile --jobs 5 $(for n in $G; do echo --name $n; done) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait; echo "builds at ${SECONDS}s"
CUTLASS_GEMM_JIT=0 timeout 60 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py -k "per_group or opcheck" > $OUT/gpu_tests_quant.log 2>&1
echo "quant tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/gpu_tests_quant.log
CUTLASS_GEMM_JIT=0 timeout 40 python3 tools/benchmark.py conv --quick --out $OUT > $OUT/bench_conv_quick.log 2>&1
echo "conv quick bench rc=$? at ${SECONDS}s"
CUTLASS_GEMM_JIT=0 timeout $((470 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -s -p no:cacheprovider tests/test_conv_int8_gpu.py > $OUT/gpu_tests_conv.log 2>&1
echo "conv tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_conv.log
mkdir -p $OUT/full
CUTLASS_GEMM_JIT=0 timeout $((585 - SECONDS)) python3 tools/benchmark.py conv --resnet --out $OUT/full > $OUT/bench_conv_full.log 2>&1
echo "conv full bench rc=$? at ${SECONDS}s"
