# Session 14 call 9 (2026-11-26), carry [".whl", "devtmp/cache_s14"]: `mixed_usable` read as a constant under
# torch.compile (the layer's forward asks it since this session) and the new GPU test of the mixed path: eager
# without a host sync, torch.compile(fullgraph=True), CUDA-graph replay, at 32 rows of a 4096-wide layer; the whole
# weight-only mixed and weight-only files again.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14i
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s14/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen14 --compile --jobs 8 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)"
wait; tail -n 1 $OUT/extension.log
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py tests/test_weight_only_gpu.py \
  tests/test_wo_heuristics.py > $OUT/tests_wo.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_wo.log)"
grep -E "compiles_captures|fast_path" $OUT/tests_wo.log | head
