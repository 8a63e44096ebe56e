# Session 61 call 5 (2026-11-29), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-29/session61/final.sh
# The final code (heuristics.PARTIAL with its wave condition; tools/device_setup.py's inductor_caches) from an EMPTY
# kernel cache: the extension beside the 6 kernels the tests below load, then test_ops_gpu.py's partial-tile and
# table tests (float64, Python path and C++ fast path).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc61f
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
N=""
for k in int8_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative \
  int8_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong e4m3_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong \
  int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong; do
  N="$N --name sm90_${k}_s0_a16x16x8"; done
python3 tools/generate_kernels.py --out /tmp/gen61f --compile --jobs 8 $N 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_ops_gpu.py -k "mostly_empty or selected_kernel" \
  > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/tests.log
