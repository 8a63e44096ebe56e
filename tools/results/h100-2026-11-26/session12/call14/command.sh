# Session 12 call 14 (2026-11-26), carry [".whl"]: the decode GEMV with the .L2::128B weight loads (call 13) in the
# library. The extension in the background; the 64x64 tile kernels (int8, e4m3) and FP8_WIDE's bf16 bias kernel the
# benchmark's tile rows need, 16 jobs; tests/test_gemv_gpu.py; `benchmark.py decode` at the README table's shapes.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_c14
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --out /tmp/gen14 --compile --jobs 16 \
  --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x256_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait; tail -n 1 $OUT/extension.log
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_gemv_gpu.py > $OUT/test_gemv_gpu.log 2>&1
echo "test_gemv_gpu rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_gemv_gpu.log)"
mkdir -p $OUT/bd
timeout $((575 - SECONDS)) python3 tools/benchmark.py decode --shapes 1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,16x14336x4096,1x28672x4096,16x4096x4096,1x1024x4096 --out $OUT/bd > $OUT/decode.log 2>&1
echo "decode rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/bd/decode.md
cd $OUT && tar czf all.tgz *.log bd && rm -rf bd
