# Session 49 call 5 (kind nvidia-h200), EMPTY kernel cache, the final code: the fp8 layers' column-major activation scales
# from 256 rows (SFA_MN_MIN_M_LAYER, call 1's probe; the op's relayout copy stays from 512), the int8 layers' from 48.
# Builds the extension and every kernel tests/test_blockwise_gpu.py, test_pdl_blockwise_gpu.py and
# test_block_linear_fast_gpu.py name, plus probe/fp8_layer_rule.py's; runs the three files with JIT off, then the probe:
# the eager Fp8BlockLinear from CUDA graphs under the old and the new rule at 256..500 rows.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc49e
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site49 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site49:$PWD
P=tools/results/h200-2026-11-29/session49/probe/fp8_layer_rule.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && for f in test_blockwise_gpu test_pdl_blockwise_gpu test_block_linear_fast_gpu; do python3 $f.py; done);
  python3 $P names ) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen49e --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_blockwise_gpu test_pdl_blockwise_gpu test_block_linear_fast_gpu; do
  timeout 90 $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
timeout $((480 - SECONDS)) python3 $P run $OUT/fp8_layer_rule.json > $OUT/fp8_layer_rule.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/fp8_layer_rule.log | tail -n 25
tar czf /tmp/all49e.tgz -C $OUT . && mv /tmp/all49e.tgz $OUT/all.tgz
