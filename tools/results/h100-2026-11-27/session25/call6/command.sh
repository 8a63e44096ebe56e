# Session 25 call 6 (2026-11-27), carry [".whl"]: the per-atom mainloop polling the next stage's barrier while the last
# atom's wgmmas run (consumer_try_wait moved off the critical path); probe/probe_interleave.py (alternating with the
# per-token kernel, 15 rounds) and the candidate-kernel GPU test of the 256x128 per-atom kernels (same bits as the
# overlapped 128x128 kernels). EMPTY cache: the extension (background) and the 5 kernels, prebuilt.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25f
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
timeout 200 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen25t --compile --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 > $OUT/kernel_token.log 2>&1 &
TOK=$!
P=sm90_blockwise_e4m3_bf16
ARGS=""
for n in sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm sfak_t256x128x128_c1x2x1_cooperative_persistent_s0_atm sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl; do ARGS="$ARGS --name ${P}_$n"; done
timeout 250 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 4 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
wait $TOK; echo "token kernel: $(tail -n 1 $OUT/kernel_token.log)"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockwise_gpu.py -k "t256x128x128 and atm" > $OUT/tests_atm.log 2>&1
echo "atm tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_atm.log)"
grep -E "FAILED|ERROR|Error|assert" $OUT/tests_atm.log | head -20
timeout $((585 - SECONDS)) python3 tools/results/h100-2026-11-27/session25/probe/probe_interleave.py 15 > $OUT/probe_interleave.md 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/probe_interleave.md
cd $OUT && tar czf all.tgz --remove-files * ; ls
