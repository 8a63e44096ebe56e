# Session 40 call 2 (kind nvidia-h200), EMPTY kernel cache: the row-block routing (wo_heuristics.row_block_limit /
# row_block_variant) in the library. Builds the extension and the 7 mixed-input kernels the probe and the tests below
# take; probe/rows_check.py (33..64 rows on narrow layers, forced split-K); `benchmark.py conv --weight-only` on the new
# routing; the weight-only GPU tests (three processes on the GPU at once, the slow files sharded).
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session40
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc40b
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site40 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site40:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
N=""; for k in f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 f16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 \
  bf16_int4_sym_t128x64x64_c1x1x1_cooperative_s0_streamk bf16_int4_sym_t256x128x64_c1x1x1_cooperative_s0_streamk \
  bf16_int4_zp_t128x64x64_c1x1x1_cooperative_s0_streamk bf16_int4_zp_t256x128x64_c1x1x1_cooperative_s0_streamk \
  bf16_int8_sym_t128x64x128_c1x1x1_cooperative_s0_streamk; do N="$N --name sm90_mixed_$k"; done
python3 tools/generate_kernels.py --mixed --out /tmp/gen40 --compile --jobs 7 $N 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 130 python3 $S/probe/rows_check.py $OUT/check > $OUT/check.log 2>&1
echo "check rc=$? at ${SECONDS}s"
timeout 80 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_conv_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "geometric" $OUT/cwo/*.md
T="timeout 170 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1; echo "rc=$?" >> $OUT/tests_wo.log; \
  $T tests/test_conv_gpu.py -k weight_only > $OUT/tests_conv.log 2>&1; echo "rc=$?" >> $OUT/tests_conv.log ) &
( CUTLASS_GEMM_TEST_SHARD=0/2 $T tests/test_wo_variants_gpu.py > $OUT/tests_var0.log 2>&1; echo "rc=$?" >> $OUT/tests_var0.log ) &
( CUTLASS_GEMM_TEST_SHARD=1/2 $T tests/test_wo_variants_gpu.py > $OUT/tests_var1.log 2>&1; echo "rc=$?" >> $OUT/tests_var1.log ) &
( $T tests/test_weight_only_mixed_gpu.py -k "uses_the_mixed or hand_off" > $OUT/tests_mixed.log 2>&1; echo "rc=$?" >> $OUT/tests_mixed.log ) &
wait
for f in tests_wo tests_conv tests_var0 tests_var1 tests_mixed; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
echo "done at ${SECONDS}s"
tar czf /tmp/all40.tgz -C $OUT . && mv /tmp/all40.tgz $OUT/all.tgz
