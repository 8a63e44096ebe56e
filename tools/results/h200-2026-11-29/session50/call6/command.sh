# Session 50 call 6 (kind nvidia-h200), EMPTY kernel cache, no torch extension: with the layers on whole M tiles
# (padded rows): call 5 found the 128 x 128 c1x1 pingpong tile ahead of the 256 x 128 one at 512..768 rows and of the
# 64 x 128 c2x1 one at 256 rows where it makes >= 100 CTAs; this checks the rows a new selection would move (384, 640,
# 1024 rows; the 100-CTA boundary at 256 rows): `tools/benchmark.py tiles`, three tiles, int8 and e4m3.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc50f CUTLASS_GEMM_FAST_PATH=0
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site50 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site50:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
C=64x128x128/c2x1x1/pingpong,128x128x128/c1x1x1/pingpong,256x128x128/c1x2x1/cooperative
python3 -c "
import sys; sys.path.insert(0, 'tools')
from cutlass_gemm.kernels import heuristics as h
from benchmark import parse_choice
for d in ('int8', 'e4m3'):
    for c in '$C'.split(','):
        print(h.make_config(90, 'scaled_bias', 'bf16', parse_choice(c), a_dtype=d).name)" > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen50f --compile --jobs 8 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
S=384x8192x8192,512x8192x8192,640x8192x8192,1024x8192x8192,384x28672x4096,512x28672x4096,768x28672x4096
S=$S,384x14336x4096,768x14336x4096,384x7168x2048,1024x7168x2048,256x6144x4096,256x12288x4096,384x4096x14336
timeout $((250 - SECONDS)) python3 tools/benchmark.py tiles --out $OUT/tiles --dtypes int8,e4m3 --shapes $S --choices $C \
  > $OUT/tiles.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "^|" $OUT/tiles.log | head -40
