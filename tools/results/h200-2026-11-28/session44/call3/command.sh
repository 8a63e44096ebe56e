# Session 44 call 3 (kind nvidia-h200), EMPTY kernel cache, final code: conv generator 5 (scalars read after the
# mainloop; the 128-row tiles launched as programmatic dependents, the 64-row ones plainly). Builds: the extension,
# all 42 conv kernels, ResNet-50's 4 GEMM kernels. probe/pdl_conv.py layers and resnet, `benchmark.py conv --quick`,
# then the conv part of tests/test_pdl_conv_mixed_gpu.py and tests/test_conv_chain_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc44c
rm -rf $CUTLASS_GEMM_CACHE_DIR
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
python3 tools/generate_kernels.py --conv --out /tmp/gen44c --compile --jobs 11 $(python3 tools/conv_kernels_needed.py all --args) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log) / $(tail -n 1 $OUT/gemm_kernels.log)"
timeout 60 python3 $P layers $OUT/layers.json > $OUT/layers.log 2>&1; echo "layers rc=$? at ${SECONDS}s"
timeout 90 python3 $P resnet $OUT/resnet.json > $OUT/resnet.log 2>&1; echo "resnet rc=$? at ${SECONDS}s"
for f in layers resnet; do echo "== $f"; cut -c1-400 $OUT/$f.log | grep -v Warning | tail -n 11; done
timeout 90 python3 tools/benchmark.py conv --quick --out $OUT/cq > $OUT/bench_cq.log 2>&1
echo "bench conv rc=$? at ${SECONDS}s"; grep -A10 "int8 chain (GPU" $OUT/cq/conv.md | cut -d'|' -f2,4,6,8,12,13; grep "geometric" $OUT/cq/conv.md | grep "chain"
L=$((520 - SECONDS)); T="timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_pdl_conv_mixed_gpu.py -k conv > $OUT/tests_pdl.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl.log ) &
( $T tests/test_conv_chain_gpu.py > $OUT/tests_chain.log 2>&1; echo "rc=$?" >> $OUT/tests_chain.log ) &
wait
for f in tests_pdl tests_chain; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
grep -h "FAILED\|Error" $OUT/tests_*.log | head -10
echo "done at ${SECONDS}s"
tar czf /tmp/all44c.tgz -C $OUT . && mv /tmp/all44c.tgz $OUT/all.tgz
