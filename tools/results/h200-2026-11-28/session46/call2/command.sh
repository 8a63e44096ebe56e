# Session 46 call 2 (kind nvidia-h200), call 1's kernel cache and extension (machine still warm): `benchmark.py
# weight_only` at the rows the stream-K mixed-input kernels serve (64-256), now launched as programmatic dependents.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc46 CUTLASS_GEMM_JIT=0 PYTHONPATH=/tmp/site46:$PWD
ls $CUTLASS_GEMM_CACHE_DIR > $OUT/cache_before.txt 2>&1; echo "cache entries before: $(wc -l < $OUT/cache_before.txt)"
timeout 400 python3 tools/benchmark.py weight_only --shapes 64x8192x8192,64x28672x4096,64x4096x14336,128x8192x8192,128x4096x14336,256x8192x8192 --out $OUT/wo > $OUT/bench_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "^|" $OUT/wo/*.md | head -30
tar czf /tmp/all46b.tgz -C $OUT . && mv /tmp/all46b.tgz $OUT/all.tgz
