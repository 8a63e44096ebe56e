# Session 42 call 3 (kind nvidia-h200), EMPTY kernel cache, the session's final code: the weight-only mma epilogue
# (bias staged with the first stage, row-by-row stores; no switch left) and the int8 conv selection (narrow Co at tile
# K 64: 128x64 tiles, clusters of 2 along M, 4 stages). Extension + 28 conv kernels (the GPU tests' and the quick
# bench's) built from nothing; `benchmark.py conv --weight-only` and `conv --quick`; the weight-only GPU test files, the
# int8 conv kernels' every-element tests and the int8-output (chain) kernel tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc42c
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site42 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site42:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen42c --compile --jobs 12 \
  --name sm90_conv2d_fprop_int8_bf16_relu6_t128x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu6_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_bf16_relu6_t64x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu_t128x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu_t128x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_bf16_relu_t64x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu_t64x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_t128x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_t128x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_bf16_t64x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_t64x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_f16_relu6_t128x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_f16_relu6_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_f16_relu6_t64x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_f16_relu_t128x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_f16_relu_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_f16_relu_t64x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_f16_t128x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_f16_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_f16_t64x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_s8_relu_t128x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_s8_relu_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_s8_relu_t64x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_s8_t128x128x128_c1x1x1_s0 --name sm90_conv2d_fprop_int8_s8_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_s8_t64x128x128_c1x1x1_s0 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 60 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_cwo.log 2>&1
echo "bench wo rc=$? at ${SECONDS}s"; grep -A16 "^| conv" $OUT/cwo/conv_weight_only.md | cut -d'|' -f2,5,6,8,11-17; grep geometric $OUT/cwo/conv_weight_only.md
timeout 60 python3 tools/benchmark.py conv --quick --out $OUT/cq > $OUT/bench_cq.log 2>&1
echo "bench quick rc=$? at ${SECONDS}s"; grep -A10 "int8 chain (GPU" $OUT/cq/conv.md; grep "geometric" $OUT/cq/conv.md | sort -u
L=$((585 - SECONDS)); T="timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1; echo "rc=$?" >> $OUT/tests_wo.log; \
  $T tests/test_conv_gpu.py -k weight_only > $OUT/tests_conv.log 2>&1; echo "rc=$?" >> $OUT/tests_conv.log ) &
( CUTLASS_GEMM_TEST_SHARD=0/2 $T tests/test_wo_variants_gpu.py > $OUT/tests_var0.log 2>&1; echo "rc=$?" >> $OUT/tests_var0.log ) &
( CUTLASS_GEMM_TEST_SHARD=1/2 $T tests/test_wo_variants_gpu.py > $OUT/tests_var1.log 2>&1; echo "rc=$?" >> $OUT/tests_var1.log ) &
( $T tests/test_conv_int8_gpu.py -k every_element > $OUT/tests_int8conv.log 2>&1; echo "rc=$?" >> $OUT/tests_int8conv.log; \
  $T tests/test_conv_chain_gpu.py -k int8_output_kernel > $OUT/tests_chain.log 2>&1; echo "rc=$?" >> $OUT/tests_chain.log ) &
wait
for f in tests_wo tests_conv tests_var0 tests_var1 tests_int8conv tests_chain; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
echo "done at ${SECONDS}s"
tar czf /tmp/all42c.tgz -C $OUT . && mv /tmp/all42c.tgz $OUT/all.tgz
