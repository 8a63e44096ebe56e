# Session 8 call 2 (2026-11-23), carry [".whl", "devtmp/qt8"]: (1) the per-tensor kernel back on its register-staged
# shared-memory stage (call 1's cp.async stage was slower), DSMEM cluster exchange, 2 vectors per thread for small
# tensors (harness session8/qt/qt8.cu rebuilt); (2) the extension's messages without ostream number formatting: the
# wo_gemm refusal test and the quant GPU tests; (3) tools/demo.py whole (tiny Llama under every scheme, ResNet-50 at
# batch 32 under both int8 schemes), kernels prebuilt beside the extension, anything else built on first use;
# (4) batch-1 1x1 convs, WeightOnlyConv2d vs cuDNN fp16.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
G="sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_bf16_scaled_azp_per_token_nobias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_e4m3_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_e4m3_bf16_scaled_tensor_tensor_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_bf16_scaled_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8"
( python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 8 $(for n in $G; do echo --name $n; done) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log; echo "gemm at ${SECONDS}s" >> $OUT/kernels_gemm.log ) &
( python3 tools/generate_kernels.py --conv --compile --jobs 3 $(python3 tools/conv_kernels_needed.py resnet --args) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_conv.log; echo "conv at ${SECONDS}s" >> $OUT/kernels_conv.log ) &
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen --compile --jobs 1 --name sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_blockwise.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen --compile --jobs 2 --name sm90_mixed_f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_f16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log ) &
./devtmp/qt8/qt8 > $OUT/qt8.log 2>&1; echo "qt8 rc=$? at ${SECONDS}s"; grep -E "CHECKS|MISMATCH" $OUT/qt8.log | head
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_*.log
CUTLASS_GEMM_JIT=0 timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py > $OUT/gpu_tests_wo_variants.log 2>&1
echo "wo variant tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_wo_variants.log
CUTLASS_GEMM_JIT=0 timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py -k "bit_exact or poisons or rms_norm or leading or opcheck or other_stream" > $OUT/gpu_tests_quant.log 2>&1
echo "quant tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/gpu_tests_quant.log
timeout $((500 - SECONDS)) python3 tools/demo.py > $OUT/demo.log 2>&1
echo "demo rc=$? at ${SECONDS}s"; grep -v "^\s*$" $OUT/demo.log | tail -n 22
mkdir -p $OUT/convwo
CUTLASS_GEMM_JIT=0 timeout $((585 - SECONDS)) python3 tools/benchmark.py conv --weight-only --out $OUT/convwo > $OUT/bench_conv_wo.log 2>&1
echo "conv wo bench rc=$? at ${SECONDS}s"; grep -E "^\||geometric" $OUT/bench_conv_wo.log | head -20
