# Session 7 call 7 (2026-11-23), carry [".whl"]: host cost per GEMM call against torch._int_mm
# (`tools/benchmark.py overhead`), and ResNet-50 at batch 32 after the static-scheme fix (`conv --quick --resnet`).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --conv --compile --jobs 6 $(python3 tools/conv_kernels_needed.py bench --args) $(python3 tools/conv_kernels_needed.py resnet --args) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_conv.log ) &
G="sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_bf16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8"
( python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 5 $(for n in $G; do echo --name $n; done) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_conv.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout 60 python3 tools/benchmark.py overhead --out $OUT > $OUT/overhead.log 2>&1
echo "overhead rc=$? at ${SECONDS}s"; cat $OUT/overhead.json 2>/dev/null | head -30
timeout $((330 - SECONDS)) python3 tools/benchmark.py conv --quick --resnet --out $OUT > $OUT/bench_conv.log 2>&1
echo "conv bench rc=$? at ${SECONDS}s"; tail -n 9 $OUT/bench_conv.log
