# Session 46 call 6 (kind nvidia-h200), call 5's warm machine and cache (/tmp/cgc46e), run inline by the device tool:
# probe/pdl_streamk.py blockwise twice more (M 96 / 300 / 1100, fp8 and int8), to see whether call 5's slower early
# fp8 chain at 300 rows repeats.
export PYTHONPATH=/tmp/site46:$PWD CUTLASS_GEMM_CACHE_DIR=/tmp/cgc46e CUTLASS_GEMM_JIT=0
for i in 1 2; do timeout 100 python3 tools/results/h200-2026-11-28/session46/probe/pdl_streamk.py blockwise $OUT/blockwise_rerun$i.json; done
