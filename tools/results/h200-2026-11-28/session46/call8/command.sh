# Session 46 call 8 (kind nvidia-h200), empty kernel cache: the fp8 128x128 tile without a cluster and with a K-major
# scale_a back to plain launches (emit_blockwise.programmatic_launch, after calls 5-7 measured it slower early).
# Builds the extension and the 9 kernels of tests/test_pdl_blockwise_gpu.py; the fp8 chain probe at 136 / 300 rows,
# then that test file.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc46f
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site46 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site46:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen46b --compile --jobs 10 \
  $(cd tests && python3 test_pdl_blockwise_gpu.py | sed 's/^/--name /') 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/blockwise_kernels.log ) &
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/blockwise_kernels.log)"
export CUTLASS_GEMM_JIT=0
CG_PROBE_SCHEMES=1 CG_PROBE_M=136,200,300 timeout 40 python3 tools/results/h200-2026-11-28/session46/probe/pdl_streamk.py blockwise $OUT/blockwise_plain_tile.json > $OUT/blockwise.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep "^{" $OUT/blockwise.log
timeout 45 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_blockwise_gpu.py > $OUT/tests_pdl_blockwise.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl_blockwise.log
echo "tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_pdl_blockwise.log | tr '\n' ' ')"
