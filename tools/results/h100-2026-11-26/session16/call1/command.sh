# Session 16 call 1 (2026-11-26), carry [".whl", "devtmp/s16"]: issue 10's quant kernels. (1) the harness
# session16/qt/qt16.cu (built on the CPU machine: bash heads.sh && nvcc -std=c++17 -O3
# -gencode=arch=compute_90,code=sm_90 qt16.cu -o devtmp/s16/qt16, and with -DCG_QUANT_ASYM_ONE_WARP=1 as qt16_asym):
# byte checks new vs commit d392b48 for every mode, then head vs new timings; (2) meanwhile the extension with the
# new quant kernels is built (EMPTY cache), then the quant GPU tests and `benchmark.py quant`.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s16_empty
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site16 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site16:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
timeout 300 ./devtmp/s16/qt16 > $OUT/qt16.log 2>&1; echo "qt16 rc=$? at ${SECONDS}s"
timeout 120 ./devtmp/s16/qt16_asym asym > $OUT/qt16_asym.log 2>&1; echo "qt16_asym rc=$? at ${SECONDS}s"
wait
tail -n 1 $OUT/extension.log
timeout $((470 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_gpu.py tests/test_quant_ops_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
timeout $((590 - SECONDS)) python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
cd $OUT && tar czf all.tgz *.log gpu.txt bq 2>/dev/null; ls
