# Session 41 call 1 (kind nvidia-h200), EMPTY kernel cache: the cluster split-K reduction of the mma kernels (policy off
# by default, switched per measurement) and candidate variants 35-37. Builds the extension and the 4 bf16 mixed-input
# kernels test_weight_only_gpu takes; probe/conv_sweep.py (the 12 batch-1 ResNet-50 1x1 convs, every mma variant,
# cluster off / on, forced splits); then the GPU tests: test_weight_only_gpu (with commit 26bada6's 100- and 200-row
# tests, not run on a GPU before), test_wo_variants_gpu's cluster / row-block tests, test_conv_gpu -k weight_only.
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session41
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc41a
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
timeout 240 python3 $S/probe/conv_sweep.py $OUT/sweep > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"; cat $OUT/sweep.log | grep -v Warn | tail -n 14
T="timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1; echo "rc=$?" >> $OUT/tests_wo.log ) &
( $T tests/test_wo_variants_gpu.py -k "cluster or row_blocks or list_matches or refused" > $OUT/tests_var.log 2>&1; echo "rc=$?" >> $OUT/tests_var.log ) &
( $T tests/test_conv_gpu.py -k weight_only > $OUT/tests_conv.log 2>&1; echo "rc=$?" >> $OUT/tests_conv.log ) &
wait
for f in tests_wo tests_var tests_conv; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
echo "done at ${SECONDS}s"
tar czf /tmp/all41.tgz -C $OUT . && mv /tmp/all41.tgz $OUT/all.tgz
