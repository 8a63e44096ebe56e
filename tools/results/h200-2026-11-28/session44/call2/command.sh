# Session 44 call 2 (kind nvidia-h200), EMPTY kernel cache: two forms of the conv kernels' programmatic launch side by
# side. B (the emitter's default): the scalar broadcasts read after the mainloop (dynamic batch stride), CUTLASS's own
# waits; A (CG_PROBE_CONV_WAIT_FIRST=1, own cache): a wrapper whose every thread waits first. Builds: the extension,
# all 42 conv kernels in form B, the chain layers' 3 int8-output tiles in form A, ResNet-50's 4 GEMM kernels.
# probe/pdl_conv.py layers (both forms) and resnet (form B), then the conv GPU test files on form B's cache.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc44b
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/cgc44w
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site44 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site44:$PWD
P=tools/results/h200-2026-11-28/session44/probe/pdl_conv.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen44g --compile --jobs 4 \
  --name sm90_int8_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/gemm_kernels.log ) &
( CG_PROBE_CONV_WAIT_FIRST=1 python3 tools/generate_kernels.py --conv --out /tmp/gen44w --compile --jobs 3 \
  --cache-dir /tmp/cgc44w --name sm90_conv2d_fprop_int8_s8_relu_t128x128x128_c1x1x1_s0 \
  --name sm90_conv2d_fprop_int8_s8_relu_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_s8_relu_t64x128x128_c1x1x1_s0 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_a.log; grep -c "ConvKernelWaitFirst" /tmp/gen44w/sm90_conv/*.cu >> $OUT/kernels_a.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen44c --compile --jobs 10 $(python3 tools/conv_kernels_needed.py all --args) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log) / $(tail -n 4 $OUT/kernels_a.log | tr '\n' ' ') / $(tail -n 1 $OUT/gemm_kernels.log)"
timeout 60 python3 $P layers $OUT/layers_b.json > $OUT/layers_b.log 2>&1; echo "layers B rc=$? at ${SECONDS}s"
CG_PROBE_CONV_WAIT_FIRST=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc44w CUTLASS_GEMM_JIT=0 timeout 60 python3 $P layers $OUT/layers_a.json > $OUT/layers_a.log 2>&1; echo "layers A rc=$? at ${SECONDS}s"
timeout 90 python3 $P resnet $OUT/resnet_b.json > $OUT/resnet_b.log 2>&1; echo "resnet B rc=$? at ${SECONDS}s"
for f in layers_b layers_a resnet_b; do echo "== $f"; cut -c1-400 $OUT/$f.log | grep -v Warning | tail -n 12; done
L=$((585 - SECONDS)); T="timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_pdl_conv_mixed_gpu.py -k conv tests/test_conv_chain_gpu.py > $OUT/tests_chain.log 2>&1; echo "rc=$?" >> $OUT/tests_chain.log ) &
( $T tests/test_conv_int8_gpu.py > $OUT/tests_int8conv.log 2>&1; echo "rc=$?" >> $OUT/tests_int8conv.log ) &
wait
for f in tests_chain tests_int8conv; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
grep -h "FAILED\|Error" $OUT/tests_*.log | head -10
echo "done at ${SECONDS}s"
tar czf /tmp/all44b.tgz -C $OUT . && mv /tmp/all44b.tgz $OUT/all.tgz
