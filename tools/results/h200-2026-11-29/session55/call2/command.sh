# Session 55 call 2 (kind nvidia-h200), EMPTY kernel cache (a fresh machine), carry [".whl"]: the staged dequantization
# kernel with one or four tiles per CTA (csrc/wo_dequant.cuh wo_dequant_form 0..3). The extension and the 4 fp16
# mixed-input kernels of probe/large_m.py built side by side; the dequant kernel test of tests/test_weight_only_gpu.py
# (forms 0, 2, 3); probe/eager_route.py part B (the dequant kernel's forms); probe/large_m.py (weight-only GEMMs with
# many rows: the layer's mixed-input kernel against dequantize + cuBLAS / cuDNN).
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session55
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc55b
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site55 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site55:$PWD
L=/tmp/L55b; rm -rf $L; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen55b --compile --jobs 4 \
  $(printf -- "--name %s " $(cat $D/call2/kernels.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
timeout 60 $T tests/test_weight_only_gpu.py -k dequant_kernel > $L/dequant_test.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/dequant_test.log
echo "dequant test: $(grep -E '[0-9]+ (passed|failed|error)' $L/dequant_test.log | tail -n 1) $(tail -n 1 $L/dequant_test.log)"
timeout 100 python3 $D/probe/eager_route.py $OUT/probe b > $L/probe_b.log 2>&1; echo "probe b rc=$? at ${SECONDS}s"
timeout $((570 - SECONDS)) python3 $D/probe/large_m.py $OUT/probe > $L/large_m.log 2>&1; echo "large_m rc=$? at ${SECONDS}s"
grep -h "^FAILED\|^ERROR\|Error" $L/*.log | head -20
cut -c1-400 $OUT/probe/dequant.md $OUT/probe/large_m.md 2>/dev/null
tail -n 4 $L/large_m.log | cut -c1-300
tar czf $OUT/logs.tgz -C $L .
