# Session 43 call 1 (kind nvidia-h200), EMPTY kernel cache: the int8 chain's NaN guard read by the conv epilogue
# (conv generator 4, conv launcher ABI 3: scale_x + 0 * scale_guard, no scale op between chained layers) and weight-only
# variant 27 capped for 2 CTAs per SM. Extension + all 42 conv kernels the tests and benches need, built from nothing;
# `benchmark.py conv --quick --resnet`, `conv --weight-only`; the conv GPU test files.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc43a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site43 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site43:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen43a --compile --jobs 14 $(python3 tools/conv_kernels_needed.py all --args) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 170 python3 tools/benchmark.py conv --quick --resnet --out $OUT/cq > $OUT/bench_cq.log 2>&1
echo "bench quick rc=$? at ${SECONDS}s"; grep -A10 "int8 chain (GPU" $OUT/cq/conv.md; grep "geometric" $OUT/cq/conv.md | grep "chain" | sort -u
grep -A9 "^ResNet-50" $OUT/cq/conv.md
timeout 60 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_cwo.log 2>&1
echo "bench wo rc=$? at ${SECONDS}s"; grep geometric $OUT/cwo/conv_weight_only.md
L=$((585 - SECONDS)); T="timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_conv_chain_gpu.py > $OUT/tests_chain.log 2>&1; echo "rc=$?" >> $OUT/tests_chain.log ) &
( $T tests/test_conv_int8_gpu.py > $OUT/tests_int8conv.log 2>&1; echo "rc=$?" >> $OUT/tests_int8conv.log ) &
( $T tests/test_conv_gpu.py > $OUT/tests_conv.log 2>&1; echo "rc=$?" >> $OUT/tests_conv.log ) &
wait
for f in tests_chain tests_int8conv tests_conv; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
echo "done at ${SECONDS}s"
tar czf /tmp/all43a.tgz -C $OUT . && mv /tmp/all43a.tgz $OUT/all.tgz
