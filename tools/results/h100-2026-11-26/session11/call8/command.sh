# Session 11 call 8 (warm machine of call 7, its cache): any GPU test file not yet run, then tools/benchmark.py shapes
# (the README's GEMM table) with the NARROW tile change.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_full
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site11 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site11:$PWD
bash tools/results/h100-2026-11-26/session11/full/run_tests.sh $OUT 100 $SECONDS
mkdir -p $OUT/shapes
[ $SECONDS -gt 430 ] && { echo "no time for shapes at ${SECONDS}s"; exit 0; }
timeout $((585 - SECONDS)) python3 tools/benchmark.py shapes --shapes 8192x8192x8192,2048x8192x8192,512x8192x8192,128x8192x8192,16x8192x8192,8192x14336x4096,8192x4096x14336,4096x4096x4096,1024x4096x4096,512x4096x14336,512x4096x4096,16x14336x4096,768x4096x4096,1024x2048x8192 --out $OUT/shapes > $OUT/bench_shapes.log 2>&1
echo "shapes rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/shapes/shapes.md | head -40
cd $OUT && tar czf all.tgz shapes && rm -rf shapes
