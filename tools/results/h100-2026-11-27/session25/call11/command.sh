# Session 25 call 11 (2026-11-27), carry [".whl"]: `tools/benchmark.py blockwise` with its new done-when ratio rows
# (the per-token kernel and the selected blockwise kernels timed in alternating batches, bench_common.
# alternating_time_us) at the large done-when shapes, --choices limited to the selected large-M kernel (the candidate
# rows are call 10's). EMPTY cache: the extension (background) and the 3 kernels the rows use.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25k
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
(timeout 250 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen25t --compile --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 > $OUT/kernel_token.log 2>&1) &
TOK=$!
P=sm90_blockwise_e4m3_bf16
timeout 250 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 2 --name ${P}_sfak_t256x128x128_c1x2x1_cooperative_persistent_s0_atm --name ${P}_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
wait $TOK; echo "token kernel: $(tail -n 1 $OUT/kernel_token.log)"
timeout $((585 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 4096x7168x2048,2048x8192x8192,8192x8192x8192 --choices ${P}_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm --out $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "^\| .*(per-token|selected|torch|Linear)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$6}' | sed 's/  */ /g; s/cutlass_gemm //'
grep -A 14 "time ratio" $OUT/bench.log
cd $OUT && tar czf all.tgz --remove-files * ; ls
