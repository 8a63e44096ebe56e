# Session 21 call 3 (2026-11-27), carry [".whl"]: PDL ON by default (pdl.cuh), tests/test_pdl_gpu.py holding the
# graph's static input. EMPTY cache: the extension; the PDL tests; the decode benchmark without the CUTLASS tile rows
# (PDL off rows beside); the weight-only benchmark at M = 1 / 16; then the GEMV and block-GEMV GPU tests (cut by
# call 1's limit) and the tiny-Llama / nn GPU tests, all with the default switch, until the time limit.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s21c
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site21 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site21:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_gpu.py > $OUT/tests_pdl.log 2>&1
echo "pdl tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_pdl.log)"
grep -E "elements differ" $OUT/tests_pdl.log | head
SH=1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096,1x28672x4096,16x28672x4096
timeout 150 python3 tools/benchmark.py decode --no-tiles --shapes $SH --out $OUT/bd > $OUT/bench_decode.log 2>&1
echo "decode bench rc=$? at ${SECONDS}s"
SW=1x8192x8192,16x8192x8192,1x28672x4096,16x28672x4096,1x4096x14336,16x4096x14336
timeout 150 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=10 \
  tests/test_gemv_gpu.py tests/test_block_gemv_gpu.py tests/test_nn_gpu.py tests/test_llama_gpu.py > $OUT/tests_gpu.log 2>&1
echo "gpu tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_gpu.log)"
grep -E "FAILED|ERROR" $OUT/tests_gpu.log | head
