# Session 45 call 4 (kind nvidia-h200), EMPTY kernel cache: two per-tensor scale kernels with an activation epilogue
# (generator 5; built from scratch, the extension not used: CUTLASS_GEMM_FAST_PATH=0), probe/act_tensor.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc45d CUTLASS_GEMM_FAST_PATH=0
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site45 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site45:$PWD
python3 tools/generate_kernels.py --out /tmp/gen45a --compile --jobs 2 \
  --name sm90_e4m3_bf16_scaled_bias_relu6_tensor_tensor_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_bf16_scaled_bias_relu_tensor_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
CUTLASS_GEMM_JIT=0 timeout 60 python3 tools/results/h200-2026-11-28/session45/probe/act_tensor.py 2>&1 | grep -v Warn | tee $OUT/act_tensor.log
echo "rc=${PIPESTATUS[0]} done at ${SECONDS}s"
