# Session 25 call 4 (2026-11-27), carry [".whl"]: the per-block layers' fast-path tests and the tiny Llama's block
# schemes with the new large-M row (call 3's run of them stopped at its time limit while the fp16 layer test built its
# kernels on first use); then probe/probe_interleave.py: the selected blockwise kernel against the per-token fp8 kernel
# timed in alternating batches (same clock and thermal state), 15 rounds per shape. EMPTY cache: the extension
# (background) and the 11 kernels those use, prebuilt.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25d
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
timeout 200 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen25t --compile --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 > $OUT/kernel_token.log 2>&1 &
TOK=$!
ARGS=""
for o in bf16 f16; do
  for n in sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl relu_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl relu6_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl gelu_tanh_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm; do
    ARGS="$ARGS --name sm90_blockwise_e4m3_${o}_${n}"
  done
done
ARGS="$ARGS --name sm90_blockwise_e4m3_bf16_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm --name sm90_blockwise_e4m3_bf16_silu_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl"
timeout 250 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 12 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
wait $TOK; echo "token kernel: $(tail -n 1 $OUT/kernel_token.log)"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_llama_gpu.py tests/test_block_linear_fast_gpu.py -k "block" > $OUT/tests_layers.log 2>&1
echo "layer tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_layers.log)"
grep -E "FAILED|ERROR|Error|assert" $OUT/tests_layers.log | head -20
timeout $((585 - SECONDS)) python3 tools/results/h100-2026-11-27/session25/probe/probe_interleave.py 15 > $OUT/probe_interleave.md 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/probe_interleave.md
cd $OUT && tar czf all.tgz --remove-files * ; ls
