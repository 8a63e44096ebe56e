# Session 51 call 3 (kind nvidia-h200), EMPTY kernel cache, the working tree with heuristics.WAVES and K in the GEMM
# plan keys (Python and the C++ fast path's PlanKey). Extension + the kernels tests/test_quant_ops_gpu.py,
# tests/test_streamk_gpu.py and probe/waves_layer.py name; the probe (new table against session 50's, out of sample),
# then both test files, JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc51c
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site51 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site51:$PWD
P=tools/results/h200-2026-11-29/session51/probe/waves_layer.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_quant_ops_gpu.py && python3 -c "import test_streamk_gpu as t; print('\n'.join(c.name for c in t.KERNELS))"); \
  python3 $P names ) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen51c --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout 220 python3 $P run $OUT/waves_layer.json > $OUT/waves_layer.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/waves_layer.log | tail -n 50
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_quant_ops_gpu test_streamk_gpu; do
  timeout $((590 - SECONDS)) $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
rm -f $OUT/pip.log
