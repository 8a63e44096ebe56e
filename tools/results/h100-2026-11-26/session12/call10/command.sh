# Session 12 call 10 (2026-11-26), carry [".whl"], fresh machine or call 9's: fp8 (e4m3) at small M on the CUTLASS
# tiles. The M <= 64 row's 64x64x128 tile against 64x128x128, 64x128x256 and 64x256x128 (pingpong, no cluster) at
# M = 16, 32, 64 (e4m3 M 9..16 with N > 4096 is not the GEMV's) over five (N, K), one process, `benchmark.py tiles`
# (scaled_bias, bf16 out, token x channel; baseline torch._scaled_mm rowwise + bias).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s12_c10
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
C="64x64x128/c1x1x1/pingpong,64x128x128/c1x1x1/pingpong,64x128x256/c1x1x1/pingpong,64x256x128/c1x1x1/pingpong"
NAMES=$(python3 -c "
import sys; sys.path.insert(0, 'tools')
from benchmark import parse_choice
from cutlass_gemm.kernels import heuristics
print(' '.join('--name ' + heuristics.make_config(90, 'scaled_bias', 'bf16', parse_choice(c), a_dtype='e4m3').name for c in '$C'.split(',')))")
python3 tools/generate_kernels.py --out /tmp/gen10 --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
mkdir -p $OUT/tiles
S=16x8192x8192,16x14336x4096,16x4096x14336,16x28672x8192,16x5120x5120,32x8192x8192,32x14336x4096,32x4096x14336,32x28672x8192,64x8192x8192,64x14336x4096,64x4096x14336,64x28672x8192,64x4096x4096,16x4096x4096
timeout $((580 - SECONDS)) python3 tools/benchmark.py tiles --dtypes e4m3 --shapes $S --choices "$C" --out $OUT/tiles > $OUT/tiles.log 2>&1
echo "tiles rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/tiles/tiles.md
cd $OUT && tar czf all.tgz *.log tiles && rm -rf tiles
