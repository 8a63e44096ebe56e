# Session 25 call 10 (2026-11-27), carry [".whl"]: the final code (per-atom mainloop with the early test_wait poll,
# generator 5) on an EMPTY cache as a new user meets it: the extension (background), the committed blockwise set (40
# kernels, --jobs 16), beside it the per-token fp8 kernels of the outlier test, the probe and the benchmark, the CUTLASS-mainloop
# twin of the mid-M "mn" kernel and the four fp16 kernels the layers' fast-path test uses; every blockwise GPU test;
# the layers' fast path and the tiny Llama's block schemes; probe/probe_interleave.py (15 rounds); then the blockwise
# benchmark at the done-when shapes.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25j
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
(timeout 300 python3 tools/generate_kernels.py --sm 90 --out /tmp/gen25t --compile --jobs 3 --name sm90_e4m3_bf16_scaled_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong_s0_a16x16x8 > $OUT/kernel_token.log 2>&1) &
TOK=$!
P=sm90_blockwise_e4m3_f16
XA="--name sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0"
for n in sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl relu_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl relu6_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl gelu_tanh_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm; do XA="$XA --name ${P}_$n"; done
(timeout 300 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25x --compile --jobs 3 $XA > $OUT/kernels_extra.log 2>&1) &
XK=$!
timeout 330 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 16 > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
wait $TOK; echo "token kernels: $(tail -n 1 $OUT/kernel_token.log)"
wait $XK; echo "extra kernels: $(tail -n 1 $OUT/kernels_extra.log)"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_blockwise_gpu.py > $OUT/tests_blockwise.log 2>&1
echo "blockwise tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_blockwise.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests_blockwise.log | head -20
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py tests/test_block_linear_fast_gpu.py -k "block" > $OUT/tests_layers.log 2>&1
echo "layer tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_layers.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests_layers.log | head -20
timeout 60 python3 tools/results/h100-2026-11-27/session25/probe/probe_interleave.py 15 > $OUT/probe_interleave.md 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/probe_interleave.md
timeout $((585 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 256x7168x2048,1024x7168x2048,4096x7168x2048,2048x8192x8192,8192x8192x8192 --out $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "^\| .*(per-token|selected|torch|Linear)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$6}' | sed 's/  */ /g; s/cutlass_gemm //'
grep -A 14 "time ratio" $OUT/bench.log
cd $OUT && tar czf all.tgz --remove-files * ; ls
