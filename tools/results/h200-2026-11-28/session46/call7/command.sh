# Session 46 call 7 (kind nvidia-h200), call 5's warm machine and cache, run inline by the device tool: the fp8 chain
# at more rows across the 128x128 tile's range (probe's CG_PROBE_M / CG_PROBE_SCHEMES added for this call).
export PYTHONPATH=/tmp/site46:$PWD CUTLASS_GEMM_CACHE_DIR=/tmp/cgc46e CUTLASS_GEMM_JIT=0 CG_PROBE_SCHEMES=1 CG_PROBE_M=136,200,300,512,768,1024
timeout 150 python3 tools/results/h200-2026-11-28/session46/probe/pdl_streamk.py blockwise $OUT/blockwise_rows.json
