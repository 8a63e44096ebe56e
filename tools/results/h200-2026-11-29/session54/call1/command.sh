# Session 54 call 1 (kind nvidia-h200), EMPTY kernel cache, carry [".whl"]: the weight-only implicit-GEMM convolution
# (runtime/csrc/wo_conv.cuh, wo_conv_ops.cu; ops/conv_wo.py; nn.WeightOnlyConv2d beyond 1x1). The extension and the two
# mixed-input kernels the batch-32 ResNet-50 1x1 layers take (kernels_mixed.txt) built first, side by side; then
#   tests/test_conv_wo_gpu.py (new), tests/test_conv_gpu.py -k weight_only (the 1x1 path's routing changed),
# then `tools/benchmark.py conv --weight-only --kxk --resnet` (the k x k rows, the variant sweep, ResNet-50 w4a16/w8a16).
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session54/call1
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc54a
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site54 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site54:$PWD
L=/tmp/L54a; rm -rf $L; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen54a --compile --jobs 4 \
  $(printf -- "--name %s " $(cat $D/kernels_mixed.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
grep -i "error\|warning: .*spill" $L/ext.log | head -20
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
timeout 200 $T tests/test_conv_wo_gpu.py > $L/conv_wo.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv_wo.log
timeout 100 $T tests/test_conv_gpu.py -k weight_only > $L/conv_1x1.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv_1x1.log
for f in conv_wo conv_1x1; do echo "$f: $(grep -E '[0-9]+ (passed|failed|error)' $L/$f.log | tail -n 1) $(tail -n 1 $L/$f.log)"; done
grep -h "rel. error" $L/conv_wo.log | cut -c1-200
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
R=$((590 - SECONDS))
timeout $R python3 tools/benchmark.py conv --weight-only --kxk --resnet --out $OUT/bench > $L/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
tail -n 60 $L/bench.log | cut -c1-400
tar czf $OUT/logs.tgz -C $L .
