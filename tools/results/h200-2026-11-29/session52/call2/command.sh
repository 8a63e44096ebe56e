# Session 52 call 2 (kind nvidia-h200), EMPTY kernel cache, carry [".whl", "devtmp/old52"]: the working tree with the
# W8A8 layer's eager call rewritten (runtime/csrc/w8a8_fast.cpp: one buffer for the quantizer's outputs, the output
# allocated in its final shape, no torch op; plans and launches shared through gemm_plans.h; allocations by
# at::detail::empty_cuda) and the layer reading its buffers from the dict. devtmp/old52 is 5e535b8's package (the
# code before it). Both extensions + the 51 kernels named by the probe and the two test files; probe/host_layer.py
# with the new and the old package alternated (new, old, new, old), then tests/test_quant_ops_gpu.py and
# tests/test_streamk_gpu.py on the new code, JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc52b
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site52 .whl/*.whl > /dev/null 2>&1 || exit 1
export PYTHONPATH=/tmp/site52:$PWD
OLD=$PWD/devtmp/old52
P=tools/results/h200-2026-11-29/session52/probe/host_layer.py
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( PYTHONPATH=/tmp/site52:$OLD python3 -c "import cutlass_gemm, sys; assert 'old52' in cutlass_gemm.__file__; \
  from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext_old.log 2>&1; \
  echo "old extension rc=$? at ${SECONDS}s" >> $OUT/ext_old.log ) &
( (cd tests && python3 test_quant_ops_gpu.py && python3 -c "import test_streamk_gpu as t; print('\n'.join(c.name for c in t.KERNELS))"); \
  python3 $P names ) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen52b --compile --jobs 14 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/ext_old.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
for i in 1 2; do
  timeout 100 python3 $P run new $OUT/host_new$i.json >> $OUT/host.log 2>&1; echo "new $i rc=$? at ${SECONDS}s"
  PYTHONPATH=/tmp/site52:$OLD timeout 100 python3 $P run old $OUT/host_old$i.json >> $OUT/host.log 2>&1; echo "old $i rc=$? at ${SECONDS}s"
done
grep -v "^$" $OUT/host.log | grep -i "error\|Traceback" | head -5
python3 $P compare $OUT/host_old*.json $OUT/host_new*.json
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_quant_ops_gpu test_streamk_gpu; do
  timeout $((590 - SECONDS)) $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
