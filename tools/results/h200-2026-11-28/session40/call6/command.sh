# Session 40 call 6 (kind nvidia-h200), EMPTY cache, the final bound (ROW_BLOCK_MAX_MNK = 2^27): the GPU tests whose
# thresholds it moved (test_weight_only_gpu.py; test_weight_only_mixed_gpu.py's narrow-layer hand-off), at once.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc40f
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site40 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site40:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
N=""; for k in int4_sym_t128x64x64_c1x1x1_cooperative_s0_streamk int4_sym_t256x128x64_c1x1x1_cooperative_s0_streamk \
  int4_zp_t128x64x64_c1x1x1_cooperative_s0_streamk int4_zp_t256x128x64_c1x1x1_cooperative_s0_streamk; do N="$N --name sm90_mixed_bf16_$k"; done
python3 tools/generate_kernels.py --mixed --out /tmp/gen40 --compile --jobs 4 $N 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
T="timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1; echo "rc=$?" >> $OUT/tests_wo.log ) &
( $T tests/test_weight_only_mixed_gpu.py -k "uses_the_mixed" > $OUT/tests_mixed.log 2>&1; echo "rc=$?" >> $OUT/tests_mixed.log ) &
wait
for f in tests_wo tests_mixed; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
echo "done at ${SECONDS}s"
