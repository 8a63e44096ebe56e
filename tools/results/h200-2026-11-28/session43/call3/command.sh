# Session 43 call 3 (kind nvidia-h200), EMPTY kernel cache: the C++ eager entry of the int8 implicit-GEMM conv op
# (csrc/conv_fast.cpp, registered by the Python path's plans). Extension + the 42 conv kernels + ResNet-50's 4 GEMM
# kernels built from nothing; `benchmark.py conv --quick --resnet` (eager wall clock of the chained ResNet-50); the
# int8 conv and chain GPU test files.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc43c
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site43 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site43:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen43h --compile --jobs 4 \
  --name sm90_int8_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/gemm_kernels.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen43c --compile --jobs 12 $(python3 tools/conv_kernels_needed.py all --args) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log) / $(tail -n 1 $OUT/gemm_kernels.log)"
timeout 150 python3 tools/benchmark.py conv --quick --resnet --out $OUT/cq > $OUT/bench_cq.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep -A10 "int8 chain (GPU" $OUT/cq/conv.md | cut -d'|' -f2,6,7,8; grep -A7 "^ResNet-50" $OUT/cq/conv.md
L=$((585 - SECONDS)); T="timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_conv_chain_gpu.py > $OUT/tests_chain.log 2>&1; echo "rc=$?" >> $OUT/tests_chain.log ) &
( $T tests/test_conv_int8_gpu.py > $OUT/tests_int8conv.log 2>&1; echo "rc=$?" >> $OUT/tests_int8conv.log ) &
wait
for f in tests_chain tests_int8conv; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
grep -h "FAILED\|Error" $OUT/tests_*.log | head -10
echo "done at ${SECONDS}s"
tar czf /tmp/all43c.tgz -C $OUT . && mv /tmp/all43c.tgz $OUT/all.tgz
