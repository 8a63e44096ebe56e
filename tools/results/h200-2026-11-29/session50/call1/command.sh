# Session 50 call 1 (kind nvidia-h200), EMPTY kernel cache: the W8A8 layers quantize into whole M tiles
# (heuristics.padded_rows). Builds the extension and the kernels tests/test_quant_ops_gpu.py and probe/pad_layer.py
# name; runs the probe (padded against unpadded layer calls, bf16 F.linear beside them), then the test file, JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc50a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site50 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site50:$PWD
P=tools/results/h200-2026-11-29/session50/probe/pad_layer.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_quant_ops_gpu.py); python3 $P names ) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen50a --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout 200 python3 $P run $OUT/pad_layer.json > $OUT/pad_layer.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; tail -n 70 $OUT/pad_layer.log
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout $((580 - SECONDS)) $T tests/test_quant_ops_gpu.py > $OUT/test_quant_ops_gpu.log 2>&1; echo "rc=$?" >> $OUT/test_quant_ops_gpu.log
echo "tests at ${SECONDS}s: $(tail -n 2 $OUT/test_quant_ops_gpu.log | tr '\n' ' ')"
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
tar czf /tmp/all50a.tgz -C $OUT . && mv /tmp/all50a.tgz $OUT/all.tgz
