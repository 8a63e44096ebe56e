# Session 23 call 6 (2026-11-27), carry [".whl"]: the B = 64 block GEMV at 2 chunks per step without its first-wave L2
# prefetch (gemv_w8a8.cu, from call 5's probe). EMPTY cache: the extension beside the SM90 blockwise fp8 kernel set
# (generate_kernels.py --blockwise --compile); tools/bench_blockint8.py at B = 64 and B = 128 (decode shapes); the GPU
# tests: block GEMV, PDL, blockwise fp8 (its layer's fast path, compile, graph, opcheck).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s23f
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site23 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site23:$PWD
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen23f --compile --jobs 10 > $OUT/kernels_blockwise.log 2>&1; \
  echo "blockwise kernels rc=$? at ${SECONDS}s" >> $OUT/kernels_blockwise.log ) &
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
S=16x8192x8192,16x4096x14336,16x28672x4096,1x8192x8192
timeout 60 python3 tools/bench_blockint8.py --shapes $S --block 64 > $OUT/bench_bi8_b64.log 2>&1; echo "bi8 B64 rc=$? at ${SECONDS}s"
timeout 60 python3 tools/bench_blockint8.py --shapes $S --block 128 > $OUT/bench_bi8_b128.log 2>&1; echo "bi8 B128 rc=$? at ${SECONDS}s"
cat $OUT/bench_bi8_b64.log $OUT/bench_bi8_b128.log | cut -d'|' -f1-11
wait; tail -n 1 $OUT/kernels_blockwise.log
timeout $((580 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_block_gemv_gpu.py \
  tests/test_pdl_gpu.py tests/test_blockwise_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR" $OUT/tests.log | head -20
cd $OUT && tar czf all.tgz --remove-files * ; ls
