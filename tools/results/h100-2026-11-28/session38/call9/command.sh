# Session 38 call 9 (2026-11-28), carry [".whl"], from the repository root: the final tools (bench_common's re-timing
# of disagreeing batches) through the decode, per-block int8 and blockwise benchmarks at the two small decode shapes,
# EMPTY kernel cache (the extension built first); stderr kept (a re-timed row is named there).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s38c_$RANDOM
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site38 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site38:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
echo "extension at ${SECONDS}s" | tee $OUT/times.txt
S=16x4096x4096,16x7168x2048
timeout 120 python3 tools/benchmark.py decode --no-tiles --shapes $S --out $OUT/dec > $OUT/dec.log 2>&1
timeout 120 python3 tools/bench_blockint8.py --block 128 --shapes $S > $OUT/bi8_b128.md 2>&1
timeout 120 python3 tools/benchmark.py blockwise --no-tiles --shapes $S --out $OUT/bw > $OUT/bw.log 2>&1
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
grep -h "timed again" $OUT/*.log $OUT/*.md; tail -n 4 $OUT/dec.log; cat $OUT/bi8_b128.md
cd $OUT && tar czf all.tgz --remove-files * && ls
