# Session 15 call 7 (H100 rerun of call7_h200) (2026-11-26), carry [".whl", "devtmp/cache_s15"]: the plain W8A8 decode GEMV with 4 chunks per step
# at M 9..16 (the rule since call 6's probe) and e4m3 taken at every N up to M = 16 (heuristics.GEMV): the decode
# benchmark (GEMV against the CUTLASS tile and torch._scaled_mm in one process, the tile kernels carried), the GEMV
# GPU tests, the block-GEMV tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s15g
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s15/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site15 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site15:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 200 python3 tools/benchmark.py decode --out $OUT/bd > $OUT/decode.log 2>&1
echo "decode bench rc=$? at ${SECONDS}s"
timeout $((560 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_gemv_gpu.py tests/test_block_gemv_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
