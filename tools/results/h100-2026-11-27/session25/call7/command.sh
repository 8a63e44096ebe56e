# Session 25 call 7 (2026-11-27), carry [".whl"]: call 6's early barrier poll against the per-atom mainloop without it
# (an experiment-only mainloop "atom_late", names ending _atl, since removed: the same loop polling each stage's
# barrier when it needs it, as in calls 1-5), in one process: probe/probe_interleave.py, 15 rounds, the selected
# (early-poll) kernel and the _atl one each in every round beside the per-token kernel. EMPTY cache.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25g
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
timeout 200 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen25t --compile --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 > $OUT/kernel_token.log 2>&1 &
TOK=$!
P=sm90_blockwise_e4m3_bf16_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0
timeout 250 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 2 --name ${P}_atm --name ${P}_atl > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
wait $TOK; echo "token kernel: $(tail -n 1 $OUT/kernel_token.log)"
timeout $((585 - SECONDS)) python3 tools/results/h100-2026-11-27/session25/probe/probe_interleave.py 15 ${P}_atl > $OUT/probe_interleave.md 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/probe_interleave.md
cd $OUT && tar czf all.tgz --remove-files * ; ls
