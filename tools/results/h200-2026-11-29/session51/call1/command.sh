# Session 51 call 1 (kind nvidia-h200), EMPTY kernel cache, the code of session 50's last commit (2823d64, the new SM90
# tile table: SELECTION's 1024-row row, heuristics.FILL). Builds the extension and the kernels that
# tests/test_quant_ops_gpu.py, tests/test_block_linear_fast_gpu.py and probe/sel_layer.py name; runs the probe (the
# padded layers with the new table against the old one, bf16 F.linear beside them; then the eager call's host time
# broken down), then both test files, JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc51a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site51 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site51:$PWD
P=tools/results/h200-2026-11-29/session51/probe/sel_layer.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_quant_ops_gpu.py && python3 test_block_linear_fast_gpu.py); python3 $P names ) \
  | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen51a --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout 60 python3 $P host $OUT/host.json > $OUT/host.log 2>&1
echo "host rc=$? at ${SECONDS}s"; head -n 12 $OUT/host.log
timeout 200 python3 $P run $OUT/sel_layer.json > $OUT/sel_layer.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; tail -n 80 $OUT/sel_layer.log
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_quant_ops_gpu test_block_linear_fast_gpu; do
  timeout $((590 - SECONDS)) $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
