# Session 19 call 7 (2026-11-27), carry [".whl"]: the committed direct kernels (1c825ea) plus variants 19-24 that
# prefetch the weight tile P tiles ahead into L2 with one SM90 bulk prefetch per tile from one lane
# (cp.async.bulk.prefetch.L2; call 5's per-lane prefetch.global.L2 was 12-20% slower). The extension built on an
# EMPTY cache, probe_direct.py, then every weight-only variant against float64 (tests/test_wo_variants_gpu.py).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19e
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
