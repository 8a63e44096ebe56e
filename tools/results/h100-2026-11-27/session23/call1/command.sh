# Session 23 call 1 (2026-11-27), carry [".whl"], fresh machine, EMPTY kernel cache: an e4m3 tile sweep at the shapes
# where fp8 sits at 1.02-1.09x torch._scaled_mm (issue 11's >= 1.05x line): the NARROW tile (128x128x128 pingpong), the
# SELECTION tiles, FP8_WIDE, and K = 256 / wider / cooperative candidates, side by side with torch._scaled_mm rowwise +
# bias in one process (tools/benchmark.py tiles). Kernels built first with generate_kernels.py (16 jobs), JIT off.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s23a
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site23 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site23:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > $OUT/gpu.txt
C="128x128x128/c1x1x1/pingpong,128x128x256/c1x1x1/pingpong,64x128x256/c1x1x1/pingpong,64x256x128/c1x1x1/pingpong,128x256x128/c1x1x1/cooperative,256x128x128/c1x2x1/cooperative,256x128x128/c1x1x1/cooperative,128x128x256/c1x1x1/cooperative,64x128x128/c2x1x1/pingpong,128x128x128/c2x1x1/cooperative"
NAMES=$(python3 - "$C" <<'PY'
import sys
sys.path.insert(0, "tools")
from benchmark import parse_choice
from cutlass_gemm.kernels import heuristics
print(" ".join("--name " + heuristics.make_config(90, "scaled_bias", "bf16", parse_choice(c), a_dtype="e4m3").name
               for c in sys.argv[1].split(",")))
PY
)
python3 tools/generate_kernels.py --out /tmp/gen23 --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels rc=$? at ${SECONDS}s"; tail -n 2 $OUT/kernels.log
export CUTLASS_GEMM_JIT=0
mkdir -p $OUT/tiles
timeout $((560 - SECONDS)) python3 tools/benchmark.py tiles --dtypes e4m3 --shapes 512x4096x14336,1024x2048x8192,512x4096x4096,1024x4096x4096,512x8192x8192,128x8192x8192,768x4096x4096,4096x4096x4096,2048x8192x8192,8192x4096x14336 --choices "$C" --out $OUT/tiles > $OUT/tiles.log 2>&1
echo "tiles rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/tiles/tiles.md; grep -E "not built|best" $OUT/tiles.log
cd $OUT && tar czf all.tgz --remove-files * ; ls
