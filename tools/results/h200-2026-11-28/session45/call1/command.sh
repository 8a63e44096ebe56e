# Session 45 call 1 (kind nvidia-h200), EMPTY kernel cache: GEMM generator 5 (the per-tensor scale kinds' scalars read
# after the mainloop, every SM90 persistent GEMM launched as a programmatic dependent). Builds: the extension, 19 GEMM
# kernels (tests/test_pdl_gemm_gpu.py's and the probe's), 3 mixed-input kernels. Then tests/test_pdl_gemm_gpu.py and
# probe/pdl_tensor.py chains / gemm / mixed (alternating CUDA-graph replays, PDL on vs off).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc45
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site45 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site45:$PWD
P=tools/results/h200-2026-11-28/session45/probe/pdl_tensor.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen45m --compile --jobs 3 \
  --name sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0_streamk \
  --name sm90_mixed_bf16_int4_sym_t128x256x64_c2x1x1_cooperative_s0 --name sm90_mixed_bf16_int8_sym_t128x256x64_c2x1x1_cooperative_s0 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/mixed_kernels.log ) &
N=""
for k in e4m3_bf16_scaled_bias_tensor_tensor_t128x128x128_c1x1x1_pingpong e4m3_bf16_scaled_bias_tensor_tensor_t256x128x128_c1x2x1_cooperative \
  e4m3_bf16_scaled_bias_tensor_tensor_t64x128x128_c2x1x1_pingpong e4m3_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong \
  e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative e4m3_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong \
  e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong int8_bf16_scaled_azp_per_token_tensor_channel_t128x128x128_c1x1x1_pingpong \
  int8_bf16_scaled_azp_per_token_tensor_channel_t256x128x128_c1x2x1_cooperative int8_bf16_scaled_azp_per_token_token_channel_t128x128x128_c1x1x1_pingpong \
  int8_bf16_scaled_azp_per_token_token_channel_t256x128x128_c1x2x1_cooperative int8_bf16_scaled_bias_tensor_channel_t128x128x128_c1x1x1_pingpong \
  int8_bf16_scaled_bias_tensor_channel_t256x128x128_c1x2x1_cooperative int8_bf16_scaled_bias_tensor_channel_t64x128x128_c2x1x1_pingpong \
  int8_bf16_scaled_bias_tensor_channel_t64x64x128_c1x1x1_pingpong int8_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong \
  int8_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative int8_bf16_scaled_bias_token_channel_t64x128x128_c2x1x1_pingpong \
  int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong; do N="$N --name sm90_${k}_s0_a16x16x8"; done
python3 tools/generate_kernels.py --out /tmp/gen45g --compile --jobs 10 $N 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/gemm_kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/gemm_kernels.log) / $(tail -n 1 $OUT/mixed_kernels.log)"
export CUTLASS_GEMM_JIT=0  # a kernel outside the built set is an error here, not a 60 s build inside a timing
L=$((330 - SECONDS)); timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_gemm_gpu.py > $OUT/tests_pdl_gemm.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_pdl_gemm.log)"; grep -h "FAILED\|Error" $OUT/tests_pdl_gemm.log | head -8
for w in chains gemm mixed; do
  L=$((555 - SECONDS)); [ $L -gt 20 ] || break
  timeout $L python3 $P $w $OUT/$w.json > $OUT/$w.log 2>&1; echo "$w rc=$? at ${SECONDS}s"
  grep "^{" $OUT/$w.log | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print({k:v for k,v in r.items() if k not in ('kernel',)})" | cut -c1-230
  grep -v "^{" $OUT/$w.log | grep -v Warning | tail -n 4
done
echo "done at ${SECONDS}s"
tar czf /tmp/all45a.tgz -C $OUT . && mv /tmp/all45a.tgz $OUT/all.tgz
