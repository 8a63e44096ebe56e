# Session 47 call 6 (kind nvidia-h200), empty kernel cache, NO torch extension (not built; JIT off): the per-block int8
# op's CUTLASS route serves without the extension (ops/blockwise_int8._impl since this call; before, any call without
# the extension took the torch reference). Builds the one kernel the test's 300-row call selects and runs
# tests/test_blockint8_sm90_gpu.py::test_cutlass_route_serves_without_the_extension.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc47f
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site47 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site47:$PWD
python3 tools/generate_kernels.py --blockwise --out /tmp/gen47k --compile --jobs 2 \
  --name sm90_blockwise_s8_bf16_sfak_t128x128x128_c2x1x1_cooperative_persistent_s0_ovl 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $OUT/kernels_bw.log
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/kernels_bw.log)"
export CUTLASS_GEMM_JIT=0
python3 -c "from cutlass_gemm.runtime import extension; print('extension loaded:', extension.load() is not None)" 2>&1 | tail -1
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockint8_sm90_gpu.py \
  -k test_cutlass_route_serves_without_the_extension > $OUT/test_no_ext.log 2>&1; echo "rc=$?" >> $OUT/test_no_ext.log
tail -n 3 $OUT/test_no_ext.log
tar czf /tmp/all47f.tgz -C $OUT . && mv /tmp/all47f.tgz $OUT/all.tgz
