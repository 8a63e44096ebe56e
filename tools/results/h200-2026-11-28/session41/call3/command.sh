# Session 41 call 3 (kind nvidia-h200), EMPTY kernel cache, the session's code (variants 35-37 dropped, clusters at <= 2
# splits by default): probe/split2.py (split-K plans of mma variants on linear shapes: the plan against 2 splits in a
# cluster, and clusters of more splits with and without the CTA spread); `benchmark.py conv --weight-only` (a second
# sample); the weight-only GPU test files in full (test_wo_variants_gpu in two shards, test_weight_only_gpu,
# test_conv_gpu -k weight_only, test_weight_only_mixed_gpu -k uses_the_mixed).
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session41
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc41c
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site41 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site41:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
N=""; for k in int4_sym_t128x64x64_c1x1x1_cooperative_s0_streamk int4_sym_t256x128x64_c1x1x1_cooperative_s0_streamk \
  int4_zp_t128x64x64_c1x1x1_cooperative_s0_streamk int4_zp_t256x128x64_c1x1x1_cooperative_s0_streamk; do N="$N --name sm90_mixed_bf16_$k"; done
python3 tools/generate_kernels.py --mixed --out /tmp/gen41 --compile --jobs 4 $N 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 150 python3 $S/probe/split2.py $OUT/split2 > $OUT/split2.log 2>&1
echo "split2 rc=$? at ${SECONDS}s"; cat $OUT/split2/split2.md 2>/dev/null | tail -n 20
timeout 80 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_conv_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "geometric" $OUT/cwo/*.md
T="timeout 230 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1; echo "rc=$?" >> $OUT/tests_wo.log; \
  $T tests/test_conv_gpu.py -k weight_only > $OUT/tests_conv.log 2>&1; echo "rc=$?" >> $OUT/tests_conv.log ) &
( CUTLASS_GEMM_TEST_SHARD=0/2 $T tests/test_wo_variants_gpu.py > $OUT/tests_var0.log 2>&1; echo "rc=$?" >> $OUT/tests_var0.log ) &
( CUTLASS_GEMM_TEST_SHARD=1/2 $T tests/test_wo_variants_gpu.py > $OUT/tests_var1.log 2>&1; echo "rc=$?" >> $OUT/tests_var1.log ) &
( $T tests/test_weight_only_mixed_gpu.py -k uses_the_mixed > $OUT/tests_mixed.log 2>&1; echo "rc=$?" >> $OUT/tests_mixed.log ) &
wait
for f in tests_wo tests_conv tests_var0 tests_var1 tests_mixed; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
echo "done at ${SECONDS}s"
tar czf /tmp/all41.tgz -C $OUT . && mv /tmp/all41.tgz $OUT/all.tgz
