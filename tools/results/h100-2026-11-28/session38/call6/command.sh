# Session 38 call 6 (2026-11-28), carry [".whl"], from the repository root: the decode rows of the per-block int8 and
# blockwise fp8 benchmarks with the CUDA-graph replay rows added this session (tools/bench_blockint8.py,
# tools/bench_blockwise.py; torch's blockwise row now rotates its weight copies like the others), and the decode
# benchmark (graph rows since session 12) at the same shapes, on an EMPTY kernel cache (the extension built first).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s38_$RANDOM
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site38 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site38:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
echo "extension at ${SECONDS}s" | tee $OUT/times.txt
S=16x4096x4096,16x6144x4096,16x7168x2048,16x8192x4096,16x8192x8192,16x14336x4096,16x28672x4096
timeout 150 python3 tools/bench_blockint8.py --block 128 --shapes $S > $OUT/bi8_b128.md 2>&1
timeout 120 python3 tools/bench_blockint8.py --block 64 --shapes $S > $OUT/bi8_b64.md 2>&1
echo "bi8 at ${SECONDS}s" | tee -a $OUT/times.txt
timeout 150 python3 tools/benchmark.py blockwise --no-tiles --shapes $S --out $OUT/bw > $OUT/bw.log 2>&1
echo "blockwise at ${SECONDS}s" | tee -a $OUT/times.txt
timeout 120 python3 tools/benchmark.py decode --no-tiles --shapes $S --out $OUT/dec > $OUT/dec.log 2>&1
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
cat $OUT/bi8_b128.md; grep -E "GEMV|graph|per-token" $OUT/bw.log | head -40
cd $OUT && tar czf all.tgz --remove-files * && ls
