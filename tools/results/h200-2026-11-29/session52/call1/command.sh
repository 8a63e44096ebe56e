# Session 52 call 1 (kind nvidia-h200), EMPTY kernel cache, code of 5e535b8 (after session 51's splits of
# kernels/blockwise.py and kernels/emit.py and the shared SM90 tile constants). Extension + the 63 kernels the
# blockwise-family GPU test files name (`python3 tests/<file>.py` prints them), then those four test files, JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc52a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site52 .whl/*.whl > /dev/null 2>&1 || exit 1
export PYTHONPATH=/tmp/site52:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
FILES="test_blockwise_gpu test_block_linear_fast_gpu test_pdl_blockwise_gpu test_blockint8_sm90_gpu"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
(cd tests && for f in $FILES; do python3 $f.py; done) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen52a --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in $FILES; do
  timeout $((590 - SECONDS)) $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
