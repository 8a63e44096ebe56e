# Session 54 call 4 (kind nvidia-h200), EMPTY kernel cache (a fresh machine), carry [".whl"]: the final code with the
# weight-only conv layer's eager C++ entry (csrc/wo_conv_ops.cu wo_conv_layer, ops/conv_wo.py layer_fast_call). The
# extension and 32 kernels (kernels.txt: test_streamk_gpu.py's 11, the 19 session 53 listed for
# test_block_linear_fast_gpu.py, the 2 mixed-input kernels of the batch-32 ResNet-50 1x1 layers) built side by side;
# then tests/test_conv_wo_gpu.py; `tools/benchmark.py conv --weight-only --kxk --resnet`; then side by side
# tests/test_streamk_gpu.py and tests/test_block_linear_fast_gpu.py (commit 6af7dd4's allocations, not run on a GPU in
# session 53).
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session54/call4
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc54d
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site54 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site54:$PWD
L=/tmp/L54d; rm -rf $L; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen54d --compile --jobs 12 \
  $(printf -- "--name %s " $(cat $D/kernels.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
timeout 120 $T tests/test_conv_wo_gpu.py > $L/conv_wo.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv_wo.log
echo "conv_wo: $(grep -E '[0-9]+ (passed|failed|error)' $L/conv_wo.log | tail -n 1) $(tail -n 1 $L/conv_wo.log)"
timeout 150 python3 tools/benchmark.py conv --weight-only --kxk --resnet --out $OUT/bench > $L/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
R=$((585 - SECONDS))
(timeout $R $T tests/test_streamk_gpu.py > $L/streamk.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/streamk.log) &
(timeout $R $T tests/test_block_linear_fast_gpu.py > $L/block_linear_fast.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/block_linear_fast.log) &
wait
for f in conv_wo streamk block_linear_fast; do echo "$f: $(grep -E '[0-9]+ (passed|failed|error)' $L/$f.log | tail -n 1) $(tail -n 1 $L/$f.log)"; done
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
(cd $CUTLASS_GEMM_CACHE_DIR && ls sm*/*.so 2>/dev/null | sed 's/-[0-9a-f]*\.so$//' | sort -u) > $L/kernels_in_cache.txt
echo "kernels in the cache: $(wc -l < $L/kernels_in_cache.txt)"
grep -E "^batch|^  batch|^\| l" $L/bench.log | cut -c1-330
tar czf $OUT/logs.tgz -C $L .
