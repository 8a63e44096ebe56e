# Session 17 call 1 (2026-11-26), carry [".whl", "devtmp/s17"]: issue 10's row quant kernels after the instruction diet.
# (1) the harness session17/qt/qt17.cu (built on the CPU machine: bash heads.sh && nvcc -std=c++17 -O3
# -gencode=arch=compute_90,code=sm_90 qt17.cu -o devtmp/s17/qt17): byte checks new vs commit 59b25f1 for every mode,
# head vs new timings, residency caps and RMSNorm kernel shapes; (2) meanwhile the extension (EMPTY cache) and the
# default SM90 GEMM set are built; then the quant-op GPU tests of the row kernels and `benchmark.py quant`.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s17_empty
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site17 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site17:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --sm 90 --out /tmp/gen17 --compile --jobs 8 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_sm90.log; \
  echo "kernels at ${SECONDS}s" >> $OUT/kernels_sm90.log ) &
timeout 330 ./devtmp/s17/qt17 > $OUT/qt17.log 2>&1; echo "qt17 rc=$? at ${SECONDS}s"
wait
echo "builds at ${SECONDS}s: $(tail -n 1 $OUT/kernels_sm90.log) | $(tail -n 1 $OUT/extension.log)"
timeout 70 python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
SEL="rms_norm or per_group or many_rows or asym_saturates or leading_dims or per_token_and_per_tensor or larger_than_the_grid"
timeout $((560 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=8 tests/test_quant_ops_gpu.py -k "$SEL" > $OUT/tests_rows.log 2>&1
echo "tests (row kernels) rc=$? at ${SECONDS}s: $(grep -E 'passed|failed' $OUT/tests_rows.log | tail -n 1)"
cd $OUT && tar czf all.tgz *.log gpu.txt bq 2>/dev/null; ls
