# Session 50 call 4 (kind nvidia-h200), EMPTY kernel cache: tests/test_block_linear_fast_gpu.py again, its kernel list
# completed (call 3's one failure: the silu kernel of test_fast_path_no_host_sync_and_cuda_graph[fp8-40] was not in
# the list, so JIT off refused it). Builds the extension and the file's kernels; runs the file, JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc50d
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site50 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site50:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
(cd tests && python3 test_block_linear_fast_gpu.py) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen50d --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout $((585 - SECONDS)) $T tests/test_block_linear_fast_gpu.py > $OUT/test_block_linear_fast_gpu.log 2>&1
echo "rc=$?" >> $OUT/test_block_linear_fast_gpu.log
echo "tests at ${SECONDS}s: $(tail -n 2 $OUT/test_block_linear_fast_gpu.log | tr '\n' ' ')"
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
