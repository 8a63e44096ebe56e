# Session 26 call 2 (2026-11-27), carry [".whl"]: on an EMPTY cache, the whole default SM90 set (130 kernels from the
# committed sources, 16 at once; its 66 per-token / per-channel kernels now launched as programmatic dependents) and
# the azp-with-bias kernels the PDL test uses, beside the extension; then the GPU tests of the scaled GEMMs, in order:
# tests/test_pdl_gemm_gpu.py (fixed: fp8's tolerance, int32 azp_adj; a second shape on the cooperative kernels),
# test_pdl_gpu.py, test_ops_gpu.py, test_nn_gpu.py, test_llama_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s26b
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site26 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site26:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log) &
EXT=$!
X="sm90_int8_bf16_scaled_azp_per_token_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8 sm90_int8_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8 sm90_e4m3_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8"
timeout 400 python3 tools/results/h100-2026-11-27/session26/probe/build_set.py 16 default $X > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|rror" $OUT/kernels.log | head -5
wait $EXT; echo "extension: $(tail -n 1 $OUT/extension.log)"
for f in test_pdl_gemm_gpu test_pdl_gpu test_ops_gpu test_nn_gpu test_llama_gpu; do
  left=$((585 - SECONDS)); [ $left -lt 20 ] && { echo "$f: no time left"; continue; }
  timeout $left python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/$f.py > $OUT/$f.log 2>&1
  echo "$f rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/$f.log)"; grep -E "^FAILED|^ERROR" $OUT/$f.log | head -8
done
cd $OUT && tar czf all.tgz --remove-files *
