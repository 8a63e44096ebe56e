# Session 12 call 1 (2026-11-26), carry [".whl", "devtmp/qt12"], fresh machine, empty kernel cache: (1) qt12 (built on
# the CPU machine: nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 ../qt/qt12.cu): session 7's byte checks,
# RMSNorm new vs commit 1781920 byte for byte, head vs new times, resident-thread caps; SASS instruction counts of the
# RMSNorm kernels; (2) tools/benchmark.py quant with this tree's kernels (the extension built here).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
timeout 300 ./devtmp/qt12/qt12 > $OUT/qt12.log 2>&1; echo "qt12 rc=$? at ${SECONDS}s"
grep -E "CHECKS|DIFFERENT|NOT NaN|FAIL" $OUT/qt12.log | head -20; grep -A60 "copy bandwidth" $OUT/qt12.log
( which cuobjdump && cuobjdump -sass ./devtmp/qt12/qt12 > /tmp/qt12.sass ) > $OUT/sass.log 2>&1
python3 - >> $OUT/sass.log 2>&1 <<'PY'
import re
txt = open('/tmp/qt12.sass').read() if __import__('os').path.exists('/tmp/qt12.sass') else ''
for blk in re.split(r'\n\s*Function : ', txt)[1:]:
    name = blk.split('\n', 1)[0]
    if 'row_quant_kernel' in name and 'RowModeE4E' in name and '13__nv_bfloat16' in name:
        n = len(re.findall(r'/\*[0-9a-f]{4}\*/\s+[A-Z@!]', blk))
        print(n, name[:200])
PY
wait; echo "build at ${SECONDS}s"; tail -qn 1 $OUT/extension.log
mkdir -p $OUT/bq
timeout $((570 - SECONDS)) python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench quant rc=$? at ${SECONDS}s"; grep -E "^\| (16|2048|8192) " $OUT/bq/quant.md
cd $OUT && tar czf all.tgz *.log bq && rm -rf bq
