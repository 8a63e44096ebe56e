# Session 24 call 4 (2026-11-27), carry [".whl"]: call 3's blockwise GPU tests ran past their 200 s limit (76 of 83
# passed, the float64 references on the host and three JIT builds inside the candidate test); the references now run
# on the GPU. EMPTY cache: the extension (background), the 33 blockwise kernels the file uses (--jobs 16) and the
# per-token fp8 kernel of its outlier test (its own nvcc run beside them); then tests/test_blockwise_gpu.py to the end.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s24d
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site24 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site24:$PWD
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
(timeout 240 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen24t --compile --jobs 1 --name sm90_e4m3_bf16_scaled_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 > $OUT/kernel_token.log 2>&1) &
TOK=$!
ARGS=""; for n in sm90_blockwise_e4m3_bf16_gelu_tanh_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_gelu_tanh_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_gelu_tanh_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl sm90_blockwise_e4m3_bf16_relu6_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_relu6_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_relu6_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl sm90_blockwise_e4m3_bf16_relu_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_relu_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_relu_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0 sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_streamk_s0 sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0 sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0 sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0 sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_streamk_s0 sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0 sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_silu_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_silu_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_silu_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl sm90_blockwise_e4m3_f16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl; do ARGS="$ARGS --name $n"; done
timeout 260 python3 tools/generate_kernels.py --blockwise --out /tmp/gen24 --compile --jobs 16 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; wait $TOK; echo "extension + token kernel done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log) / $(tail -n 1 $OUT/kernel_token.log)"
timeout $((455 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=8 tests/test_blockwise_gpu.py > $OUT/tests_blockwise.log 2>&1
echo "blockwise tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_blockwise.log)"
grep -E "FAILED|ERROR|Error|passed|s call" $OUT/tests_blockwise.log | head -20
cd $OUT && tar czf all.tgz --remove-files * ; ls
