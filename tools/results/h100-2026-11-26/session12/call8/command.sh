# Session 12 call 8 (warm machine of call 7, its caches): scalar/bench_scalar.py --large: the 8192^3 rows again, eight
# rounds, the order of the four cases turning each round (call 7's rows there followed the case order).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_c7
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
mkdir -p $OUT/large
timeout 400 python3 tools/results/h100-2026-11-26/session12/scalar/bench_scalar.py $OUT/large --large > $OUT/bench_scalar_large.log 2>&1
echo "bench_scalar --large rc=$? at ${SECONDS}s"; tail -n 5 $OUT/bench_scalar_large.log
