# Session 19 call 12 (2026-11-27), the warm machine of call 11 (its cache: the extension not rebuilt), carry [".whl"]:
# call 11's benchmark again at four shapes, after its 4 x 4096 x 14336 w8a16 row read 51.67 us (the probe of call 10
# had the same kernel at 26.22 us).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19i PYTHONPATH=/tmp/site19:$PWD; mkdir -p $CUTLASS_GEMM_CACHE_DIR; ls $CUTLASS_GEMM_CACHE_DIR/ext 2>&1 | head -2; timeout 400 python3 tools/benchmark.py weight_only --shapes 4x4096x14336,4x8192x8192,1x28672x4096,1x8192x8192 --out $OUT/bwo_rerun > $OUT/bench_wo_rerun.log 2>&1; echo rc=$?; grep -E "WeightOnlyLinear|bf16" $OUT/bwo_rerun/weight_only.md
