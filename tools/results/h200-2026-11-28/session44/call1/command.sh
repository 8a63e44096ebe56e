# Session 44 call 1 (kind nvidia-h200), EMPTY kernel cache: programmatic dependent launches of the int8 conv kernels
# (conv generator 5: a wrapper whose every thread waits first) and of the persistent mixed-input kernels (mixed-input
# generator 4). Builds: the extension, the conv `quick` set + the two bf16 relu tiles of the new test, three mixed
# kernels. Then tests/test_pdl_conv_mixed_gpu.py, `benchmark.py conv --quick` (chain rows with and without PDL) and
# `benchmark.py weight_only` at large M (mixed rows with a plain-launch twin).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc44a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site44 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site44:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen44m --compile --jobs 3 \
  --name sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0_streamk \
  --name sm90_mixed_bf16_int4_sym_t128x256x64_c2x1x1_cooperative_s0 \
  --name sm90_mixed_bf16_int8_sym_t128x256x64_c2x1x1_cooperative_s0 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/mixed_kernels.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen44c --compile --jobs 8 $(python3 tools/conv_kernels_needed.py quick --args) \
  --name sm90_conv2d_fprop_int8_bf16_relu_t128x64x64_c2x1x1_s4 --name sm90_conv2d_fprop_int8_bf16_relu_t128x128x128_c1x1x1_s0 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log) / $(tail -n 1 $OUT/mixed_kernels.log)"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_conv_mixed_gpu.py > $OUT/tests_pdl.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_pdl.log)"; grep -h "FAILED\|Error" $OUT/tests_pdl.log | head -8
timeout 170 python3 tools/benchmark.py conv --quick --out $OUT/cq > $OUT/bench_cq.log 2>&1
echo "bench conv rc=$? at ${SECONDS}s"; grep -A10 "int8 chain (GPU" $OUT/cq/conv.md | cut -d'|' -f2,4,6,8,12,13; grep "geometric" $OUT/cq/conv.md | grep chain
L=$((570 - SECONDS)); timeout $L python3 tools/benchmark.py weight_only --shapes 2048x8192x8192,1024x8192x8192,2048x28672x4096,4096x8192x8192 --out $OUT/wo > $OUT/bench_wo.log 2>&1
echo "bench wo rc=$? at ${SECONDS}s"; grep "mixed\|bf16 F.linear" $OUT/wo/weight_only.md | cut -d'|' -f2,3,5,6 | head -30
echo "done at ${SECONDS}s"
tar czf /tmp/all44a.tgz -C $OUT . && mv /tmp/all44a.tgz $OUT/all.tgz
