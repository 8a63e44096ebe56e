# Session 55 call 1 (kind nvidia-h200), EMPTY kernel cache (a fresh machine), carry [".whl"]: the weight-only conv
# layer's eager C++ entry serving the "dequant_cudnn" route too (csrc/wo_conv_ops.cu dequant_conv, ops/conv_wo.py
# DEQUANT_CUDNN) and the staged dequantization kernel beside the per-word one (csrc/wo_dequant.cuh, switch
# wo_set_dequant_staged). The extension and the 2 mixed-input kernels of the batch-32 ResNet-50 1x1 layers built side
# by side; tests/test_conv_wo_gpu.py; the dequant kernel test of tests/test_weight_only_gpu.py (both forms); then
# probe/eager_route.py (A: ResNet-50 eager with the entry against the op's route; B: the dequant kernel's two forms);
# then `tools/benchmark.py conv --weight-only --kxk --resnet`.
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session55
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc55a
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site55 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site55:$PWD
L=/tmp/L55a; rm -rf $L; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen55a --compile --jobs 4 \
  $(printf -- "--name %s " $(cat $D/call1/kernels.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
timeout 150 $T tests/test_conv_wo_gpu.py > $L/conv_wo.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv_wo.log
echo "conv_wo: $(grep -E '[0-9]+ (passed|failed|error)' $L/conv_wo.log | tail -n 1) $(tail -n 1 $L/conv_wo.log)"
timeout 60 $T tests/test_weight_only_gpu.py -k dequant_kernel > $L/dequant_test.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/dequant_test.log
echo "dequant test: $(grep -E '[0-9]+ (passed|failed|error)' $L/dequant_test.log | tail -n 1) $(tail -n 1 $L/dequant_test.log)"
timeout 120 python3 $D/probe/eager_route.py $OUT/probe a > $L/probe_a.log 2>&1; echo "probe a rc=$? at ${SECONDS}s"
timeout 120 python3 $D/probe/eager_route.py $OUT/probe b > $L/probe_b.log 2>&1; echo "probe b rc=$? at ${SECONDS}s"
R=$((580 - SECONDS))
timeout $R python3 tools/benchmark.py conv --weight-only --kxk --resnet --out $OUT/bench > $L/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
cat $OUT/probe/eager_route.md $OUT/probe/dequant.md 2>/dev/null | cut -c1-400
tail -n 3 $L/probe_a.log $L/probe_b.log | cut -c1-300
grep -E "^batch|^  batch" $L/bench.log | cut -c1-200
tar czf $OUT/logs.tgz -C $L .
