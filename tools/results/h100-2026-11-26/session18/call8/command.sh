# Session 18 call 8 (2026-11-26), carry [".whl"]: the final code on an EMPTY cache, the GPU tests not run in calls 2/6:
# the w8a8 layer cases of test_quant_ops_gpu.py (they JIT-compile GEMM kernels; the default SM90 set is built
# beside them), then test_nn_gpu.py with the time left.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s18t
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site18 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site18:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
( python3 tools/generate_kernels.py --sm 90 --out /tmp/gen18 --compile --jobs 12 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_sm90.log; \
  echo "kernels at ${SECONDS}s" >> $OUT/kernels_sm90.log ) &
SEL="rms_norm or per_group or many_rows or asym_saturates or leading_dims or per_token_and_per_tensor or larger_than_the_grid or nonfinite or each_form"
SEL2="opcheck or no_host_sync or other_stream or float32_input"
timeout 380 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py -k "not ($SEL or $SEL2)" > $OUT/tests_w8a8.log 2>&1
echo "w8a8 tests rc=$? at ${SECONDS}s: $(grep -E 'passed|failed' $OUT/tests_w8a8.log | tail -n 1)"
L=$((545 - SECONDS)); [ $L -lt 10 ] && L=10
timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_nn_gpu.py > $OUT/tests_nn.log 2>&1
echo "nn tests rc=$? at ${SECONDS}s: $(grep -E 'passed|failed' $OUT/tests_nn.log | tail -n 1)"
tail -n 2 $OUT/kernels_sm90.log
