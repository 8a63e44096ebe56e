# Session 50 call 3 (kind nvidia-h200), EMPTY kernel cache: the final code of the session (blockwise padding from 65
# rows below 7168 columns, PAD_SMALL_MIN_N). Builds the extension and every kernel tests/test_quant_ops_gpu.py and
# test_block_linear_fast_gpu.py name; runs both files, JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc50c
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site50 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site50:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
(cd tests && for f in test_quant_ops_gpu test_block_linear_fast_gpu; do python3 $f.py; done) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen50c --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_quant_ops_gpu test_block_linear_fast_gpu; do
  timeout $((585 - SECONDS)) $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
tar czf /tmp/all50c.tgz -C $OUT . && mv /tmp/all50c.tgz $OUT/all.tgz
