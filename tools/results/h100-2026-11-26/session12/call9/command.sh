# Session 12 call 9 (2026-11-26), carry [".whl"], fresh machine, empty kernel cache: (1) in the background the
# extension, then commit 1781920's builds of scalar/bench_scalar.py's kernels; the eight bf16 scaled_bias
# token x channel kernels of the tile table (int8, e4m3) with 16 jobs; (2) tools/benchmark.py shapes at the README
# table's twelve shapes plus 768x4096x4096 and 1024x2048x8192 (the NARROW tile since session 11); (3)
# scalar/bench_scalar.py --large again (8192^3, eight rounds, order turning, every round recorded).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_c9
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
B=tools/results/h100-2026-11-26/session12/scalar/bench_scalar.py
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
  echo "extension at ${SECONDS}s" >> $OUT/extension.log
  python3 $B $OUT --compile-old > $OUT/compile_old.log 2>&1; echo "old kernels rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
NAMES=$(python3 -c "
from cutlass_gemm.kernels import heuristics
cs = [c for c in heuristics.default_configs(90) if c.variant == 'scaled_bias' and c.out_dtype == 'bf16'
      and (c.scale_a, c.scale_b, c.activation) == ('token', 'channel', 'none')]
print(' '.join('--name ' + c.name for c in cs))")
python3 tools/generate_kernels.py --out /tmp/gen9 --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait; tail -n 2 $OUT/extension.log
mkdir -p $OUT/shapes
S=8192x8192x8192,2048x8192x8192,512x8192x8192,128x8192x8192,16x8192x8192,8192x14336x4096,8192x4096x14336,4096x4096x4096,1024x4096x4096,512x4096x14336,512x4096x4096,16x14336x4096,768x4096x4096,1024x2048x8192
timeout $((480 - SECONDS)) python3 tools/benchmark.py shapes --shapes $S --out $OUT/shapes > $OUT/shapes.log 2>&1
echo "shapes rc=$? at ${SECONDS}s"; cat $OUT/shapes/shapes.md 2>/dev/null | head -24
mkdir -p $OUT/large
timeout $((590 - SECONDS)) python3 $B $OUT/large --large > $OUT/bench_scalar_large.log 2>&1
echo "bench_scalar --large rc=$? at ${SECONDS}s"; tail -n 4 $OUT/bench_scalar_large.log
cd $OUT && tar czf all.tgz *.log shapes large && rm -rf shapes large
