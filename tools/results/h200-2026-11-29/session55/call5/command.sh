# Session 55 call 5 (kind nvidia-h200), EMPTY kernel cache (a fresh machine), carry [".whl"]: the final code
# (`WeightOnlyConv2d`'s 1x1 GEMM layers on a channels_last x through the (N, H, W, Ci) view; the shared entry-counting
# helper of tests/test_conv_wo_gpu.py; wo_dequant.cuh's comment). The extension and the 2 fp16 mixed-input kernels of
# the ResNet-50 1x1 layers built side by side; then tests/test_conv_wo_gpu.py beside tests/test_conv_gpu.py (it builds
# its int8 and bf16 mixed-input kernels on first use); then probe/gemm_rows.py alone.
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session55
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc55e
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site55 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site55:$PWD
L=/tmp/L55e; rm -rf $L; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen55e --compile --jobs 4 \
  $(printf -- "--name %s " $(cat $D/call5/kernels.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
(timeout 220 $T tests/test_conv_wo_gpu.py > $L/conv_wo.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv_wo.log) &
(timeout 220 $T tests/test_conv_gpu.py > $L/conv.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv.log) &
wait
for f in conv_wo conv; do echo "$f: $(grep -E '[0-9]+ (passed|failed|error)' $L/$f.log | tail -n 1) $(tail -n 1 $L/$f.log)"; done
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
timeout $((470 - SECONDS)) python3 $D/probe/gemm_rows.py $OUT/probe > $L/gemm_rows.log 2>&1; echo "gemm_rows rc=$? at ${SECONDS}s"
cat $OUT/probe/gemm_rows.md 2>/dev/null; tail -n 3 $L/gemm_rows.log | cut -c1-300
tar czf $OUT/logs.tgz -C $L .
