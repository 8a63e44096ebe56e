# Session 12 call 11 (2026-11-26), carry [".whl"]: the e4m3 wide-layer row (heuristics.FP8_WIDE, 64x128x256 pingpong
# at M <= 64, N >= 12288). Extension in the background; its kernels (scaled_bias bf16, scaled f16) and the int8 64x64
# bf16 one the benchmark rows need, 16 jobs; tests/test_ops_gpu.py -k wide; then
# tools/benchmark.py shapes at the wide decode shapes (public ops, one process, against torch._scaled_mm).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_c11
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --out /tmp/gen11 --compile --jobs 16 \
  --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x256_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_e4m3_f16_scaled_token_channel_t64x128x256_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait; tail -n 1 $OUT/extension.log
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_ops_gpu.py -k wide > $OUT/test_ops_gpu_wide.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_ops_gpu_wide.log)"
mkdir -p $OUT/shapes
timeout $((560 - SECONDS)) python3 tools/benchmark.py shapes --shapes 16x14336x4096,16x28672x8192,32x14336x4096,64x14336x4096,64x28672x8192,16x8192x8192 --out $OUT/shapes > $OUT/shapes.log 2>&1
echo "shapes rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/shapes/shapes.md
cd $OUT && tar czf all.tgz *.log shapes && rm -rf shapes
