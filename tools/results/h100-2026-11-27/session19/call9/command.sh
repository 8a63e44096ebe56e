# Session 19 call 9 (2026-11-27), carry [".whl"]: after call 8's stall reasons (long scoreboard 27%, barrier +
# membar 11% of the cycles: short split-K CTAs), the committed direct kernels plus variants 19-21 that split K
# inside the CTA instead (x1 1x4, 1x8, 2x4 warps at 1024 threads per SM). The extension built on an EMPTY cache,
# probe_direct.py, then every weight-only variant against float64 (tests/test_wo_variants_gpu.py).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19g
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site19 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site19:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 200 python3 tools/results/h100-2026-11-27/session19/wo/probe_direct.py $OUT/probe_direct.md > $OUT/probe_direct.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; tail -n 3 $OUT/probe_direct.log
grep -E "best" $OUT/probe_direct.md
timeout $((570 - SECONDS)) python3 -m pytest -q -m gpu -x tests/test_wo_variants_gpu.py > $OUT/tests_wo.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/tests_wo.log
