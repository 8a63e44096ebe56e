# Session 7 call 5 (2026-11-23), carry [".whl"]: which extension TORCH_CHECK crashes (probe_refuse.py), and the conv
# benchmark's 3x3 rows at batch 32 (kernel / e2e / dynamic and static layer, CUDA-graph GPU time) with ResNet-50 at
# batch 32 (fp16 cuDNN vs w8a8-int8 and w8a8-int8-static, eager and graph).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --conv --compile --jobs 6 $(python3 tools/conv_kernels_needed.py bench --args) $(python3 tools/conv_kernels_needed.py resnet --args) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_conv.log ) &
G="sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8 sm90_int8_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8"
( python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 3 $(for n in $G; do echo --name $n; done) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_conv.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout 60 python3 tools/results/h100-2026-11-23/session7/call5/probe_refuse.py > $OUT/probe_refuse.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep "^==" $OUT/probe_refuse.log
timeout $((560 - SECONDS)) python3 tools/benchmark.py conv --quick --resnet --out $OUT > $OUT/bench_conv.log 2>&1
echo "conv bench rc=$? at ${SECONDS}s"; tail -n 12 $OUT/bench_conv.log
