# Session 42 call 1 (kind nvidia-h200), EMPTY kernel cache: the weight-only mma kernels' epilogue (bias staged in shared
# memory with the first stage; 16-byte output stores, ext.wo_set_store16) and cg_pdl::launch_clustered. Extension and the
# int8 conv kernels of `benchmark.py conv --quick` built from nothing; probe/store16.py (16- against 4-byte stores, with
# and without a bias); `benchmark.py conv --weight-only` (bias-free columns and measured floors, first GPU run);
# `benchmark.py conv --quick` (3x3 convs at batch 32 against cuDNN fp16 with and without a bias); the weight-only GPU
# tests and the quantization-op GPU tests (every launch goes through the changed pdl.cuh).
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session42
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc42a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site42 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site42:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen42 --compile --jobs 6 \
  $(python3 tools/conv_kernels_needed.py quick --args) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 120 python3 $S/probe/store16.py $OUT/store16 > $OUT/store16.log 2>&1
echo "store16 rc=$? at ${SECONDS}s"; cat $OUT/store16/store16.md 2>/dev/null | tail -n 38; tail -n 3 $OUT/store16.log
timeout 90 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_cwo.log 2>&1
echo "bench wo rc=$? at ${SECONDS}s"; cat $OUT/cwo/conv_weight_only.md 2>/dev/null | cut -c1-400; tail -n 3 $OUT/bench_cwo.log
timeout 120 python3 tools/benchmark.py conv --quick --out $OUT/cq > $OUT/bench_cq.log 2>&1
echo "bench quick rc=$? at ${SECONDS}s"; grep -A12 "int8 chain (GPU" $OUT/cq/conv.md 2>/dev/null; grep "geometric" $OUT/cq/conv.md; tail -n 3 $OUT/bench_cq.log
L=$((585 - SECONDS)); T="timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1; echo "rc=$?" >> $OUT/tests_wo.log; \
  $T tests/test_conv_gpu.py -k weight_only > $OUT/tests_conv.log 2>&1; echo "rc=$?" >> $OUT/tests_conv.log ) &
( CUTLASS_GEMM_TEST_SHARD=0/2 $T tests/test_wo_variants_gpu.py > $OUT/tests_var0.log 2>&1; echo "rc=$?" >> $OUT/tests_var0.log ) &
( CUTLASS_GEMM_TEST_SHARD=1/2 $T tests/test_wo_variants_gpu.py > $OUT/tests_var1.log 2>&1; echo "rc=$?" >> $OUT/tests_var1.log ) &
( $T tests/test_quant_ops_gpu.py > $OUT/tests_quant.log 2>&1; echo "rc=$?" >> $OUT/tests_quant.log ) &
wait
for f in tests_wo tests_conv tests_var0 tests_var1 tests_quant; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
echo "done at ${SECONDS}s"
tar czf /tmp/all42.tgz -C $OUT . && mv /tmp/all42.tgz $OUT/all.tgz
