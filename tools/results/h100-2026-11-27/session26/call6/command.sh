# Session 26 call 6 (2026-11-27), carry [".whl"]: after moving the layer chain and the bit-equality assertion into
# tests/gpu_helpers.py: on an EMPTY cache, the extension and the six int8 / e4m3 bias kernels of the chains (64x128 c2x1,
# 128x128, 256x128 c1x2) at once; then the chain tests of tests/test_pdl_gemm_gpu.py and tests/test_pdl_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s26f
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site26 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site26:$PWD
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log) &
EXT=$!
X=""; for d in int8 e4m3; do for t in t64x128x128_c2x1x1_pingpong t128x128x128_c1x1x1_pingpong t256x128x128_c1x2x1_cooperative; do X="$X sm90_${d}_bf16_scaled_bias_token_channel_${t}_s0_a16x16x8"; done; done
timeout 200 python3 tools/results/h100-2026-11-27/session26/probe/build_set.py 6 $X > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait $EXT; echo "extension: $(tail -n 1 $OUT/extension.log)"
timeout $((230 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider -k chain tests/test_pdl_gemm_gpu.py tests/test_pdl_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"; grep -E "^FAILED|^ERROR" $OUT/tests.log | head -8
