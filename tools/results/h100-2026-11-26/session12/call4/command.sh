# Session 12 call 4 (warm machine of calls 2-3, its cache): scalar/bench_scalar.py (ABI-3 kernels against commit
# 1781920's ABI-2 builds of the same kernels, one process; the per-tensor path) and tools/benchmark.py overhead.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_full
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
timeout 300 python3 tools/results/h100-2026-11-26/session12/scalar/bench_scalar.py $OUT > $OUT/bench_scalar.log 2>&1
echo "bench_scalar rc=$? at ${SECONDS}s"; tail -n 12 $OUT/bench_scalar.log
timeout $((380 - SECONDS)) python3 tools/benchmark.py overhead --out $OUT > $OUT/overhead.log 2>&1
echo "overhead rc=$? at ${SECONDS}s"; grep -A14 us_per_call $OUT/overhead.json
