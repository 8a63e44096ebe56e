# Session 11 calls 5-8 (2026-11-26): the whole GPU test suite from an EMPTY kernel cache on one machine, kept warm
# from call to call (each call starts within seconds of the last; the cache lives under /tmp, which survives while
# the machine stays held), carry [".whl"], after the NARROW tile change (128x128x128 pingpong without a cluster).
# Call 5 (fresh machine, empty cache): the extension and the SM90 default set (generate_kernels.py --sm 90 --compile
# --all, 16 jobs), then as many of the tests' extra kernels (full/kernels.py) as fit.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_full
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR 2>/dev/null | wc -l)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site11 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site11:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( time timeout 540 python3 tools/generate_kernels.py --sm 90 --compile --all --jobs 16 ) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_default.log
echo "default set at ${SECONDS}s: $(grep -E "compiled" $OUT/kernels_default.log)"
NAMES=$(python3 tools/results/h100-2026-11-26/session11/full/kernels.py)
timeout $((575 - SECONDS)) python3 tools/generate_kernels.py --out /tmp/gen_extra --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels_extra.log
echo "extra at ${SECONDS}s: $(tail -n 1 $OUT/kernels_extra.log)"
wait; tail -n 1 $OUT/extension.log; echo "cache entries: $(ls $CUTLASS_GEMM_CACHE_DIR | wc -l)"
