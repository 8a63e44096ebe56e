# Session 26 call 4 (2026-11-27), carry [".whl"]: a second run on an EMPTY cache: the extension (background), the
# prebuilt set, the 128x128 pingpong kernels and the two FP8_WIDE kernels (17+4 at once, committed sources); the fixed
# tests/test_ops_gpu.py::test_fp8_wide_layers_take_their_tile, tests/test_pdl_gemm_gpu.py; then `benchmark.py shapes`
# at the README table's 14 shapes again (the fp8 >= 1.05x `_scaled_mm` line's second run with PDL).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s26d
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site26 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site26:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log) &
EXT=$!
X=""; for n in int8_bf16_scaled_bias e4m3_bf16_scaled_bias int8_bf16_scaled_azp_per_token; do X="$X sm90_${n}_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8"; done
X="$X sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x256_c1x1x1_pingpong_s0_a16x16x8 sm90_e4m3_f16_scaled_token_channel_t64x128x256_c1x1x1_pingpong_s0_a16x16x8"
timeout 300 python3 tools/results/h100-2026-11-27/session26/probe/build_set.py 16 prebuilt $X > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|rror" $OUT/kernels.log | head -5
wait $EXT; echo "extension: $(tail -n 1 $OUT/extension.log)"
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_ops_gpu.py -k fp8_wide tests/test_pdl_gemm_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"; grep -E "^FAILED|^ERROR" $OUT/tests.log | head -8
S=8192x8192x8192,2048x8192x8192,512x8192x8192,128x8192x8192,16x8192x8192,8192x14336x4096,8192x4096x14336,4096x4096x4096,1024x4096x4096,512x4096x14336,512x4096x4096,16x14336x4096,768x4096x4096,1024x2048x8192
timeout $((590 - SECONDS)) python3 tools/benchmark.py shapes --shapes $S --out $OUT/shapes > $OUT/shapes.log 2>&1
echo "shapes rc=$? at ${SECONDS}s"; cat $OUT/shapes/shapes.md 2>/dev/null | head -24
cd $OUT && tar czf all.tgz --remove-files *
