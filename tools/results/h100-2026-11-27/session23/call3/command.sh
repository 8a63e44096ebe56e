# Session 23 call 3 (2026-11-27), carry [".whl"]: the per-block layers' eager decode call from one C++ call
# (ops/block_linear.py -> extension block_linear_fast). EMPTY cache: the extension; the blockwise fp8 decode rows
# (layer rows with their eager wall clock) with the fast path on, then off (CUTLASS_GEMM_FAST_PATH=0) for the layer
# rows' before; the per-block int8 decode rows with the Int8BlockLinear eager wall column; then the GPU tests of the
# new path, the block GEMV, and the tiny Llama's block schemes. $OUT packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s23c
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site23 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site23:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
S=1x8192x8192,16x8192x8192,16x4096x14336,16x28672x4096,16x7168x2048
timeout 120 python3 tools/benchmark.py blockwise --no-tiles --shapes $S --out $OUT/bb > $OUT/bench_block.log 2>&1
echo "block bench rc=$? at ${SECONDS}s"; grep -E "Fp8BlockLinear|layer baseline" $OUT/bench_block.log
CUTLASS_GEMM_FAST_PATH=0 timeout 100 python3 tools/benchmark.py blockwise --no-tiles --shapes $S --out $OUT/bb_off > $OUT/bench_block_off.log 2>&1
echo "block bench (fast path off) rc=$? at ${SECONDS}s"; grep -E "Fp8BlockLinear|layer baseline" $OUT/bench_block_off.log
timeout 90 python3 tools/bench_blockint8.py --shapes 1x8192x8192,16x8192x8192,16x4096x14336,16x28672x4096,16x4096x4096 --block 128 > $OUT/bench_bi8.log 2>&1
echo "bi8 bench rc=$? at ${SECONDS}s"; cat $OUT/bench_bi8.log
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k block > $OUT/tests_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_llama.log)"
timeout $((575 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/test_block_linear_fast_gpu.py \
  tests/test_block_gemv_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests_llama.log | head
grep -E "FAILED|ERROR|Error" $OUT/tests.log | head -20
cd $OUT && tar czf all.tgz --remove-files * ; ls
