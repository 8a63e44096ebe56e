# Session 11 call 1 (2026-11-26), carry [".whl", "devtmp/qt11"], fresh machine, empty kernel cache: (1) qt11 (built on
# the CPU machine, nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 ../qt/qt11.cu): session 7's byte checks
# against commit 6f3f184's kernels, persistent vs one-CTA-per-row bytes, then the threads-per-SM sweep;
# (2) tools/benchmark.py quant with the library's default (persistent rows and groups at 512 threads/SM).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site11 .whl/*.whl
export PYTHONPATH=/tmp/site11:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
timeout 330 ./devtmp/qt11/qt11 > $OUT/qt11.log 2>&1; echo "qt11 rc=$? at ${SECONDS}s"
grep -E "CHECKS|DIFFERENT|FAIL" $OUT/qt11.log | head -20; grep -A50 "copy bandwidth" $OUT/qt11.log
wait; echo "build at ${SECONDS}s"; tail -qn 1 $OUT/extension.log
mkdir -p $OUT/bq
timeout $((585 - SECONDS)) python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench quant rc=$? at ${SECONDS}s"; grep -E "^\| (2048|8192) " $OUT/bq/quant.md
cd $OUT && tar czf all.tgz *.log bq && rm -rf bq
