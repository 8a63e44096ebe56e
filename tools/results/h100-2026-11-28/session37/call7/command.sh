# Session 37 call 7 (2026-11-28), carry [".whl"], from the repository root at the session's final library code, EMPTY
# kernel cache: the extension built from scratch, then the GEMV / per-block GEMV / PDL GPU test files.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s37_final
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site37f .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site37f:$PWD
git log --oneline -1 > $OUT/commit.txt 2>&1 || true
timeout 480 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_gemv_gpu.py tests/test_block_gemv_gpu.py tests/test_pdl_gpu.py > $OUT/t_gemv.log 2>&1
echo "done at ${SECONDS}s" | tee $OUT/times.txt
tail -n 2 $OUT/t_gemv.log; grep -E "^(FAILED|ERROR)" $OUT/t_gemv.log | head -5
cd $OUT && tar czf all.tgz --remove-files * && ls
