# Session 43 call 4 (kind nvidia-h200), EMPTY kernel cache: probe/eager.py, the chained int8 ResNet-50's eager wall
# clock with the conv op's C++ eager entry on and off in one process (5 alternating rounds), beside fp16 cuDNN.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc43d
rm -rf $CUTLASS_GEMM_CACHE_DIR
S=tools/results/h200-2026-11-28/session43
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site43 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site43:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen43i --compile --jobs 4 \
  --name sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/gemm_kernels.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen43d --compile --jobs 12 $(python3 tools/conv_kernels_needed.py chain --args) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log) / $(tail -n 1 $OUT/gemm_kernels.log)"
timeout $((330 - SECONDS)) python3 $S/probe/eager.py $OUT/eager > $OUT/eager.log 2>&1
echo "eager rc=$? at ${SECONDS}s"; tail -n 12 $OUT/eager.log
tar czf /tmp/all43d.tgz -C $OUT . && mv /tmp/all43d.tgz $OUT/all.tgz
