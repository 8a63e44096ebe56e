# Session 46 call 4 (kind nvidia-h200), empty kernel cache: the whole mixed-input default set (56 kernels, every
# stream-K one now a programmatic dependent with its own workspace fill) built beside the extension, then
# tests/test_weight_only_mixed_gpu.py in full (every selectable kernel against float64, the new hand-off rows of
# ops/wo_heuristics.MIXED_FROM, the layer's C++ entry, graphs, torch.compile) and the mixed PDL tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc46d
ls $CUTLASS_GEMM_CACHE_DIR > $OUT/cache_before.txt 2>&1; echo "cache entries before: $(wc -l < $OUT/cache_before.txt)"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site46 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site46:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen46m --compile --jobs 14 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/mixed_kernels.log ) &
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/mixed_kernels.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout $((560 - SECONDS)) $T tests/test_weight_only_mixed_gpu.py > $OUT/tests_mixed.log 2>&1; echo "rc=$?" >> $OUT/tests_mixed.log
echo "mixed tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_mixed.log | tr '\n' ' ')"
timeout $((585 - SECONDS)) $T tests/test_pdl_conv_mixed_gpu.py -k "mixed_" > $OUT/tests_pdl_mixed.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl_mixed.log
echo "pdl mixed tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_pdl_mixed.log | tr '\n' ' ')"
grep -h "^FAILED\|^ERROR" $OUT/tests_*.log | head -10
tar czf /tmp/all46d.tgz -C $OUT . && mv /tmp/all46d.tgz $OUT/all.tgz
