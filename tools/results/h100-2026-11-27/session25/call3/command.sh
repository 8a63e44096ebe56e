# Session 25 call 3 (2026-11-27), carry [".whl"]: the new blockwise SELECTION (M <= 128 64x128 pingpong and <= 1024
# 128x128 cooperative, overlapped promotion; above 256x128 cooperative 1x2 cluster with the per-atom promotion). EMPTY
# cache: the extension (background) and the committed blockwise set (40 kernels, --jobs 16) as a new user's prebuild
# (plus the per-token fp8 kernel of the outlier test, the previous large-M "mn" kernel and the CUTLASS-mainloop twin
# of the mid-M "mn" one); every blockwise GPU test; the tiny Llama's block schemes and the block layers' fast path; then the blockwise benchmark at the done-when shapes with the previous selection's
# large-M kernels (128x128 1x2 overlapped) as --choices rows beside the new.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25c
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
timeout 200 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen25t --compile --name sm90_e4m3_bf16_scaled_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 > $OUT/kernel_token.log 2>&1 &
TOK=$!
P=sm90_blockwise_e4m3_bf16
OLD=${P}_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl,${P}_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl
timeout 200 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25o --compile --jobs 2 --name ${P}_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl --name ${P}_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0 > $OUT/kernel_old.log 2>&1 &
OLDK=$!
timeout 330 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 16 > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
wait $TOK; echo "token kernel: $(tail -n 1 $OUT/kernel_token.log)"
wait $OLDK; echo "previous large-M kernel: $(tail -n 1 $OUT/kernel_old.log)"
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_blockwise_gpu.py > $OUT/tests_blockwise.log 2>&1
echo "blockwise tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_blockwise.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests_blockwise.log | head -20
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py tests/test_block_linear_fast_gpu.py -k "block" > $OUT/tests_layers.log 2>&1
echo "layer tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_layers.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests_layers.log | head -20
timeout $((580 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 256x7168x2048,1024x7168x2048,4096x7168x2048,2048x8192x8192,8192x8192x8192 --choices $OLD --out $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "^\| .*(per-token|selected|blockwise t|torch|Linear)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$6,$10}' | sed 's/  */ /g; s/cutlass_gemm //; s/ persistent//; s/cooperative/coop/; s/activation quantized on the GPU per call; //'
grep -A 14 "time ratio" $OUT/bench.log
cd $OUT && tar czf all.tgz --remove-files * ; ls
