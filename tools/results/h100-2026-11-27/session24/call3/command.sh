# Session 24 call 3 (2026-11-27), carry [".whl"]: the final blockwise SELECTION (every row with the overlapped-promotion
# mainloop; M <= 128 64x128 pingpong, <= 1024 128x128 cooperative, above it with a 1x2 cluster). EMPTY cache: the
# extension (background) and the committed blockwise set (38 kernels, --jobs 16) as a new user's prebuild; every
# blockwise GPU test; the tiny Llama's block schemes and the block layers' fast path; then the blockwise benchmark at
# the done-when shapes with the previous selection's kernels (CUTLASS's mainloop) as --choices rows beside the new.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s24c
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site24 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site24:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
timeout 330 python3 tools/generate_kernels.py --blockwise --out /tmp/gen24 --compile --jobs 16 > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_blockwise_gpu.py > $OUT/tests_blockwise.log 2>&1
echo "blockwise tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_blockwise.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests_blockwise.log | head -20
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py tests/test_block_linear_fast_gpu.py -k "block" > $OUT/tests_layers.log 2>&1
echo "layer tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_layers.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests_layers.log | head -20
OLD=sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0
timeout $((575 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 256x7168x2048,1024x7168x2048,4096x7168x2048,2048x8192x8192,8192x8192x8192 --choices $OLD --out $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "^\| .*(per-token|selected|blockwise t|torch|Linear)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$6,$10}' | sed 's/  */ /g; s/cutlass_gemm //; s/ persistent//; s/cooperative/coop/; s/activation quantized on the GPU per call; //'
grep -A 14 "time ratio" $OUT/bench.log
cd $OUT && tar czf all.tgz --remove-files * ; ls
