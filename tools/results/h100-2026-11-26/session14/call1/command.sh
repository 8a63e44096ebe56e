# Session 14 call 1 (2026-11-26), carry [".whl", "devtmp/cache_s14"]: issue 12's large-M weight-only kernels.
# The SM90 mixed-input candidates of tools/bench_mixed_sweep.py (18: 13 int4 g128 + 5 int8 per channel, bf16;
# tiles, 2x1 clusters, pingpong, the new stream-K scheduler), built on the CPU machine into devtmp/cache_s14 with
# the same nvcc 13.0.88 (generate_kernels.py re-verifies them: "cached" or a rebuild), the torch extension built
# beside them (the small-M rows), then the sweep at M 1..4096 x (8192x8192, 28672x4096, 4096x14336).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s14/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen14 --compile --jobs 14 $(python3 tools/bench_mixed_sweep.py --names) 2>&1 \
  | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait; tail -n 1 $OUT/extension.log
timeout $((575 - SECONDS)) python3 tools/bench_mixed_sweep.py --out $OUT/sweep > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"
tail -n 25 $OUT/sweep/mixed_table.py 2>/dev/null; grep -c FAILED $OUT/sweep.log
