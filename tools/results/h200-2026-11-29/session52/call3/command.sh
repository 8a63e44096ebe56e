# Session 52 call 3 (kind nvidia-h200), EMPTY kernel cache, carry [".whl", "devtmp/old52"]: call 2's working tree
# with the fix its tests asked for (w8a8_fast.cpp: the static mode's scale is per row, as quant_rows writes it) and
# the probe's timing interleaved (the host's noise swamped call 2's separate runs). devtmp/old52 is 5e535b8's
# package, its extension built from /tmp (call 2 built it from the repository root, where `import cutlass_gemm`
# took the new package). Both extensions + the kernels of the probe, tests/test_quant_ops_gpu.py and
# tests/test_ops_gpu.py -k cpp_fast_path (session 51 call 5's list); probe/host_layer.py new, old, new, old; then the
# two test selections on the new code, JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc52c
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site52 .whl/*.whl > /dev/null 2>&1 || exit 1
export PYTHONPATH=/tmp/site52:$PWD
OLD=$PWD/devtmp/old52
P=tools/results/h200-2026-11-29/session52/probe/host_layer.py
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( cd /tmp && PYTHONPATH=/tmp/site52:$OLD python3 -c "import cutlass_gemm, sys; assert 'old52' in cutlass_gemm.__file__; \
  from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext_old.log 2>&1; \
  echo "old extension rc=$? at ${SECONDS}s" >> $OUT/ext_old.log ) &
( (cd tests && python3 test_quant_ops_gpu.py); python3 $P names; \
  cat tools/results/h200-2026-11-29/session51/call5/kernels_named.txt ) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen52c --compile --jobs 14 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/ext_old.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
for i in 1 2; do
  timeout 80 python3 $P run new $OUT/host_new$i.json >> $OUT/host.log 2>&1; echo "new $i rc=$? at ${SECONDS}s"
  (cd /tmp && PYTHONPATH=/tmp/site52:$OLD timeout 80 python3 $OLDPWD/$P run old $OUT/host_old$i.json) >> $OUT/host.log 2>&1
  echo "old $i rc=$? at ${SECONDS}s"
done
grep -h "package\|Traceback\|Error" $OUT/host.log | sort | uniq -c | head -8
python3 $P compare $OUT/host_old*.json $OUT/host_new*.json
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout $((590 - SECONDS)) $T tests/test_quant_ops_gpu.py > $OUT/test_quant_ops_gpu.log 2>&1; echo "rc=$?" >> $OUT/test_quant_ops_gpu.log
echo "test_quant_ops_gpu at ${SECONDS}s: $(tail -n 2 $OUT/test_quant_ops_gpu.log | tr '\n' ' ')"
timeout $((595 - SECONDS)) $T tests/test_ops_gpu.py -k "cpp_fast_path or autotune" > $OUT/test_ops_gpu.log 2>&1; echo "rc=$?" >> $OUT/test_ops_gpu.log
echo "test_ops_gpu at ${SECONDS}s: $(tail -n 2 $OUT/test_ops_gpu.log | tr '\n' ' ')"
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
