# Session 25 call 13 (2026-11-27), carry [".whl"]: the op turns a row-major scale_a into the column-major layout itself
# from K = 4096 and M = 512 (kernels/blockwise.relayout_sfa); its GPU test (same bits as passing column-major, float64
# check; M % 4 != 0 keeps row-major) and the benchmark at 2048 x 8192^2 and 8192^3, where the "selected" row passes
# row-major scale_a. EMPTY cache: the extension (background) and 5 kernels.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25m
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
(timeout 250 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen25t --compile --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 > $OUT/kernel_token.log 2>&1) &
TOK=$!
P=sm90_blockwise_e4m3_bf16
ARGS=""
for n in sfak_t256x128x128_c1x2x1_cooperative_persistent_s0_atm sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl; do ARGS="$ARGS --name ${P}_$n"; done
timeout 250 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 4 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
wait $TOK; echo "token kernel: $(tail -n 1 $OUT/kernel_token.log)"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockwise_gpu.py -k "relaid" > $OUT/tests_relaid.log 2>&1
echo "relaid tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_relaid.log)"
grep -E "FAILED|ERROR|Error|assert" $OUT/tests_relaid.log | head -20
timeout $((585 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 2048x8192x8192,8192x8192x8192 --choices ${P}_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm --out $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "^\| .*(per-token|selected|torch|Linear)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$6}' | sed 's/  */ /g; s/cutlass_gemm //'
grep -A 14 "time ratio" $OUT/bench.log
cd $OUT && tar czf all.tgz --remove-files * ; ls
