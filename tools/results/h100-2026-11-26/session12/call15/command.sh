# Session 12 call 15 (2026-11-26), carry [".whl", "devtmp/qt13"]: (1) qt13 (built on the CPU machine: nvcc -std=c++17
# -O3 -gencode=arch=compute_90,code=sm_90 ../qt/qt13.cu): the row kernels prefetching the next wave's rows into L2
# against commit bd50d1a's, byte checks and times; (2) tools/benchmark.py quant with this tree's kernels.
# Result: bytes identical, but slower everywhere (2-39%): not adopted, reverted (qt/prefetch.diff); call15/bq is WITH it.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_c15
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
timeout 300 ./devtmp/qt13/qt13 > $OUT/qt13.log 2>&1; echo "qt13 rc=$? at ${SECONDS}s"
grep -E "CHECKS|DIFFERENT|NOT NaN|FAIL" $OUT/qt13.log | head -20; grep -A40 "copy bandwidth" $OUT/qt13.log
wait; tail -qn 1 $OUT/extension.log
mkdir -p $OUT/bq
timeout $((570 - SECONDS)) python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench quant rc=$? at ${SECONDS}s"; grep -E "^\| (2048|4096|8192) " $OUT/bq/quant.md | cut -c1-200
cd $OUT && tar czf all.tgz *.log bq && rm -rf bq
