# Session 13 call 5: call 4's machine and cache. tests/test_sm80_on_sm90_gpu.py (the last file of the whole suite; its
# fixture builds the SM80 family, single nvcc runs, for sm_80 + sm_90), then `benchmark.py shapes` at the README
# table's shapes on split-build kernels (the fp8 >= 1.05x `_scaled_mm` line's second run).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s13b
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site13 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site13:$PWD
L=/tmp/s13_c5; mkdir -p $L/shapes
timeout 300 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_sm80_on_sm90_gpu.py > $L/test_sm80_on_sm90_gpu.log 2>&1
echo "test_sm80_on_sm90_gpu rc=$? at ${SECONDS}s: $(tail -n 1 $L/test_sm80_on_sm90_gpu.log)"
S=8192x8192x8192,2048x8192x8192,512x8192x8192,128x8192x8192,16x8192x8192,8192x14336x4096,8192x4096x14336,4096x4096x4096,1024x4096x4096,512x4096x14336,512x4096x4096,16x14336x4096,768x4096x4096,1024x2048x8192
timeout $((585 - SECONDS)) python3 tools/benchmark.py shapes --shapes $S --out $L/shapes > $L/shapes.log 2>&1
echo "shapes rc=$? at ${SECONDS}s"; cat $L/shapes/shapes.md 2>/dev/null | head -24
tar czf $OUT/logs.tgz -C $L .
