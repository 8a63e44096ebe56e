# Session 55 call 2b: the same machine, warm (call 2's cache and extension), probe/large_m.py again after its fix (the
# 1x1 layers with K padded past Ci: dequantized weight sliced to Ci columns).
set -u
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc55b PYTHONPATH=/tmp/site55:$PWD
D=tools/results/h200-2026-11-29/session55
timeout 500 python3 $D/probe/large_m.py $OUT/probe > $OUT/large_m.log 2>&1; echo "large_m rc=$? at ${SECONDS}s"
cut -c1-600 $OUT/probe/large_m.md; tail -n 3 $OUT/large_m.log | cut -c1-300
