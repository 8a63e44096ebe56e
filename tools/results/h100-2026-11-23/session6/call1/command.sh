# Session 6 call 1 (2026-11-23): the call prepared in session 5 (session5/next1), run as is.
# repository root with carry [".whl"]: `bash tools/results/h100-2026-11-23/session5/next1/command.sh`
# (then move this folder's outputs into that session's own results folder).
# 1. the probe of the Int8Linear wall-clock row (session5/call5/probe.py);
# 2. the SM90 mixed-input weight-only kernels (8) and their GPU tests (never run before);
# 3. the 1x1 conv GPU tests (never run before).
# Budget: extension ~120 s beside ~17 kernels on 16 cores (two nvcc waves, ~150-250 s), then ~150 s of tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension done at ${SECONDS}s" >> $OUT/extension.log ) &
N="sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8
sm90_int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8
sm90_int8_bf16_scaled_bias_token_channel_t128x128x128_c1x2x1_pingpong_s0_a16x16x8
sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8
sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8
sm90_int8_bf16_scaled_bias_relu_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8
sm90_int8_bf16_scaled_bias_relu6_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8
sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8
sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8"
( python3 tools/generate_kernels.py --mixed --compile --jobs 8 > $OUT/kernels_mixed.log 2>&1; echo "mixed kernels rc=$? at ${SECONDS}s" >> $OUT/kernels_mixed.log ) &
python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 8 $(for n in $N; do echo -n "--name $n "; done) > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s"; wait; tail -1 $OUT/kernels.log $OUT/kernels_mixed.log $OUT/extension.log
timeout 100 python3 tools/results/h100-2026-11-23/session5/call5/probe.py > $OUT/probe.log 2>&1; echo "probe rc=$? at ${SECONDS}s"; cat $OUT/probe.log | tail -12
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py tests/test_conv_gpu.py -s > $OUT/gpu_tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; grep -E "passed|failed" $OUT/gpu_tests.log | tail -2; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests.log | head -20
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
