# Session 19 call 2 (2026-11-27, same machine, warm: the cache of call 1 if still there), carry [".whl"]: the register-fed weight-only "direct" kernels (wo_direct.cuh,
# variants 14-20) and the stream kernel refactored onto wo_warp.cuh. The extension built on an EMPTY cache, then
# session19/wo/probe_direct.py (every variant x split count, int4 g128 / int8 per channel, M = 1/4/8/16, four
# shapes), then the weight-only GPU tests (every variant against float64, the layer's fast path).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site19 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site19:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 480 python3 tools/results/h100-2026-11-27/session19/wo/probe_direct.py $OUT/probe_direct.md > $OUT/probe_direct.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; tail -n 3 $OUT/probe_direct.log
grep -E "best" $OUT/probe_direct.md
