# Session 21 call 5 (2026-11-27), carry [".whl"]: the weight-only small-M variant sweep with PDL on (the default since
# call 3; ops/wo_heuristics.TABLE was filled by session 19's sweep with plain launches). EMPTY cache: the extension,
# then tools/bench_wo_sweep.py at M = 1 / 4 / 8 / 16, the three benchmark shapes, int4 g128 and int8 per channel.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s21e
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site21 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site21:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 450 python3 tools/bench_wo_sweep.py --out $OUT --m 1,4,8,16 > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"
cat $OUT/wo_table.py 2>/dev/null | head -60
