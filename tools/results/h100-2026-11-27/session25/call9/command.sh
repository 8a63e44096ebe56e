# Session 25 call 9 (2026-11-27), carry [".whl"]: how the next stage's barrier is polled early. mbarrier try_wait may
# suspend the thread until the phase completes (call 8: the overlapped mainloop with an early try_wait lost 3-8%);
# test_wait only looks. Experiment-only mainloops (since removed): "atom_x" (_atx) = call 6's per-atom loop (early
# try_wait) against "atom" here polling with test_wait; "overlap_x" (_ovx) = the overlapped loop polling with test_wait
# right after issuing against "overlap" as committed. probe/probe_interleave.py (15 rounds) and probe_mainloops.py.
# EMPTY cache: the extension (background) and 5 kernels.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25i
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
timeout 200 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen25t --compile --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 > $OUT/kernel_token.log 2>&1 &
TOK=$!
P=sm90_blockwise_e4m3_bf16_sfamn
A=t256x128x128_c1x2x1_cooperative_persistent_s0
C=t128x128x128_c1x1x1_cooperative_persistent_s0
timeout 250 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 4 --name ${P}_${A}_atm --name ${P}_${A}_atx --name ${P}_${C}_ovl --name ${P}_${C}_ovx > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
wait $TOK; echo "token kernel: $(tail -n 1 $OUT/kernel_token.log)"
timeout 200 python3 tools/results/h100-2026-11-27/session25/probe/probe_interleave.py 15 ${P}_${A}_atx > $OUT/probe_interleave.md 2>&1
echo "probe atom rc=$? at ${SECONDS}s"; cat $OUT/probe_interleave.md
timeout $((585 - SECONDS)) python3 tools/results/h100-2026-11-27/session25/probe/probe_mainloops.py 15 256x7168x2048,512x7168x2048,1024x7168x2048,512x8192x8192 ${P}_${C}_ovl ${P}_${C}_ovx > $OUT/probe_co.md 2>&1
echo "probe co rc=$? at ${SECONDS}s"; cat $OUT/probe_co.md
cd $OUT && tar czf all.tgz --remove-files * ; ls
