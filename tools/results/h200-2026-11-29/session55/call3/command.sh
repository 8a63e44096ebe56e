# Session 55 call 3 (kind nvidia-h200), EMPTY kernel cache (a fresh machine), carry [".whl"]: the final code (one
# dequantization kernel, staged, one or four tiles per CTA; the conv layer's eager dequant route, a 1x1 stride-1 conv
# with K padded past Ci as a GEMM over the pixel rows in both the op and the entry). The extension and 10 kernels
# (kernels.txt: the 2 mixed-input kernels of the batch-32 ResNet-50 1x1 layers, the 7 int8 GEMMs and the int8 conv
# kernel tests/test_conv_gpu.py names) built side by side; then tests/test_conv_wo_gpu.py and tests/test_conv_gpu.py
# side by side; tests/test_weight_only_gpu.py in two shards side by side; then
# `tools/benchmark.py conv --weight-only --kxk --resnet` alone.
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session55
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc55c
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site55 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site55:$PWD
L=/tmp/L55c; rm -rf $L; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen55c --compile --jobs 10 \
  $(printf -- "--name %s " $(cat $D/call3/kernels.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
(timeout 240 $T tests/test_conv_wo_gpu.py > $L/conv_wo.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv_wo.log) &
(timeout 240 $T tests/test_conv_gpu.py > $L/conv.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv.log) &
wait
(CUTLASS_GEMM_TEST_SHARD=0/2 timeout 200 $T tests/test_weight_only_gpu.py > $L/wo0.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/wo0.log) &
(CUTLASS_GEMM_TEST_SHARD=1/2 timeout 200 $T tests/test_weight_only_gpu.py > $L/wo1.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/wo1.log) &
wait
for f in conv_wo conv wo0 wo1; do echo "$f: $(grep -E '[0-9]+ (passed|failed|error)' $L/$f.log | tail -n 1) $(tail -n 1 $L/$f.log)"; done
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
R=$((585 - SECONDS))
timeout $R python3 tools/benchmark.py conv --weight-only --kxk --resnet --out $OUT/bench > $L/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
(cd $CUTLASS_GEMM_CACHE_DIR && ls sm*/*.so 2>/dev/null | sed 's/-[0-9a-f]*\.so$//' | sort -u) > $L/kernels_in_cache.txt
echo "kernels in the cache: $(wc -l < $L/kernels_in_cache.txt)"
grep -E "^batch|^  batch|^\| l" $L/bench.log | cut -c1-330
tar czf $OUT/logs.tgz -C $L .
