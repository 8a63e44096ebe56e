# Session 22 call 2 (2026-11-27): call 1's probe and blockwise benchmark again on the same warm machine (its kernel
# cache /tmp/cgc_s22a and extension kept), because call 1 returned only its first eight files. The command as run:
export CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s22a PYTHONPATH=/tmp/site22:$PWD; P=tools/results/h100-2026-11-27/session22/probe
ls /tmp/cgc_s22a | head -3
timeout 200 python3 $P/probe_wo22.py $OUT/wo22.md > $OUT/wo22.log 2>&1; echo rc=$?
timeout 120 python3 tools/benchmark.py blockwise --no-tiles --shapes 1x8192x8192,8x8192x8192,16x8192x8192,16x4096x14336,16x28672x4096,16x7168x2048 --out $OUT/bb > $OUT/bench_block.log 2>&1; echo rc=$?
cd $OUT && tar czf r.tgz wo22.md wo22.log bench_block.log bb && rm -rf wo22.md wo22.log bb bench_block.log; ls
