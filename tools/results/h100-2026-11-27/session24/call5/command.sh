# Session 24 call 5 (2026-11-27), carry [".whl"]: the per-block layers' eager call above decode sizes from one C++ call
# (ops/block_linear.py -> extension block_linear_fast: quant_groups + bi8_gemm for int8, + the CUTLASS blockwise kernel's
# launcher for fp8). EMPTY cache: the extension (background) and the 12 blockwise kernels the tests and the probe use;
# tests/test_block_linear_fast_gpu.py (M 1..1100, same bits as the Python path); probe/probe_layer_m.py (fast path on
# vs off, device time and eager wall, beside bf16 F.linear and nn.Linear).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s24e
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site24 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site24:$PWD
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
ARGS=""; for n in sm90_blockwise_e4m3_bf16_gelu_tanh_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_relu6_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_relu_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_bf16_silu_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl sm90_blockwise_e4m3_f16_gelu_tanh_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_f16_relu6_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_f16_relu_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sm90_blockwise_e4m3_f16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl; do ARGS="$ARGS --name $n"; done
timeout 200 python3 tools/generate_kernels.py --blockwise --out /tmp/gen24 --compile --jobs 12 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
grep -iE "error" $OUT/extension.log | head -5
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_block_linear_fast_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR|Error|assert" $OUT/tests.log | head -20
timeout $((390 - SECONDS)) python3 tools/results/h100-2026-11-27/session24/probe/probe_layer_m.py > $OUT/probe_layer_m.md 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/probe_layer_m.md
cd $OUT && tar czf all.tgz --remove-files * ; ls
