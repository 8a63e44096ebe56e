# Session 53 call 2 (kind nvidia-h200), EMPTY kernel cache, carry [".whl"]: the code under test (the extension's
# eager entries of the weight-only, per-block, mixed-input and conv layers allocate without torch ops, csrc/alloc.h;
# the layers read their buffers through nn/_buffers.py BufferReader). The extension and 57 kernels built first (the
# ones call 1's tiny Llama / test_nn_gpu built on first use, and those test_block_linear_fast_gpu.py and
# test_quant_ops_gpu.py list), then the GPU test files these changes touch, side by side (JIT on: a kernel missing
# from the list is built on first use):
#   test_block_linear_fast_gpu.py (block_linear_fast), test_block_gemv_gpu.py (block_gemv), test_weight_only_gpu.py in
#   3 shards (wo_linear_fast, wo_gemm), test_quant_ops_gpu.py in 3 shards (quant_groups), test_nn_gpu.py,
#   test_llama_gpu.py in 2 shards (every layer scheme end to end).
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session53/call2
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc53b
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site53 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site53:$PWD
L=/tmp/L53b; rm -rf $L; mkdir -p $L
cat $D/kernels_*.txt | sort -u > $L/kernels_named.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen53b --compile --jobs 14 \
  $(printf -- "--name %s " $(cat $L/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $L/kernels_named.txt) kernels): $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
R=$((585 - SECONDS))
t() { local name=$1 shard=$2; shift 2; (CUTLASS_GEMM_TEST_SHARD=$shard timeout $R $T "$@" > $L/$name.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/$name.log) & }
t block_linear_fast "" tests/test_block_linear_fast_gpu.py
t block_gemv "" tests/test_block_gemv_gpu.py
for i in 0 1 2; do t weight_only.$i $i/3 tests/test_weight_only_gpu.py; done
for i in 0 1 2; do t quant_ops.$i $i/3 tests/test_quant_ops_gpu.py; done
t nn "" tests/test_nn_gpu.py
for i in 0 1; do t llama.$i $i/2 tests/test_llama_gpu.py; done
wait
echo "tests done at ${SECONDS}s"
for f in $L/*.log; do case $f in *ext.log|*kernels.log) continue;; esac
  echo "$(basename $f): $(grep -E '[0-9]+ (passed|failed|error)' $f | tail -n 1) $(tail -n 1 $f)"; done
grep -h "relative error" $L/llama.*.log | cut -c1-160
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
(cd $CUTLASS_GEMM_CACHE_DIR && ls sm*/*.so 2>/dev/null | sed 's/-[0-9a-f]*\.so$//' | sort -u) > $L/kernels_in_cache.txt
echo "kernels in the cache: $(wc -l < $L/kernels_in_cache.txt)"
tar czf $OUT/logs.tgz -C $L .
