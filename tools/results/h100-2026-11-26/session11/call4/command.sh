# Session 11 call 4 (2026-11-26), carry [".whl"], fresh machine, empty kernel cache: the NARROW tile (problems the
# 256x128 tile would cut into < 100 CTAs) for both input types: 128x128x128 pingpong with cluster 1x2 (today's) vs 1x1
# vs 2x1, 128x128 cooperative 1x1, 64x256 pingpong 1x1 and the 256x128 cooperative 1x2 of the last SELECTION row, at
# narrow (and two not-narrow) shapes, int8 and e4m3 side by side with torch._int_mm / cuBLASLt / torch._scaled_mm.
# Kernels built first with generate_kernels.py (16 jobs), then tools/benchmark.py tiles (JIT off).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site11 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site11:$PWD
C="128x128x128/c1x2x1/pingpong,128x128x128/c1x1x1/pingpong,128x128x128/c2x1x1/pingpong,128x128x128/c1x1x1/cooperative,64x256x128/c1x1x1/pingpong,256x128x128/c1x2x1/cooperative"
NAMES=$(python3 - "$C" <<'PY'
import sys
sys.path.insert(0, "tools")
from benchmark import parse_choice
from cutlass_gemm.kernels import heuristics
print(" ".join("--name " + heuristics.make_config(90, "scaled_bias", "bf16", parse_choice(c), a_dtype=d).name
               for c in sys.argv[1].split(",") for d in ("int8", "e4m3")))
PY
)
python3 tools/generate_kernels.py --out /tmp/gen11 --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels rc=$? at ${SECONDS}s"; tail -n 1 $OUT/kernels.log
export CUTLASS_GEMM_JIT=0
mkdir -p $OUT/tiles
timeout $((580 - SECONDS)) python3 tools/benchmark.py tiles --dtypes int8,e4m3 --shapes 300x4096x4096,512x4096x4096,512x4096x14336,768x4096x4096,512x2048x8192,1024x2048x8192,2048x1024x4096,1024x4096x4096,512x8192x8192 --choices "$C" --out $OUT/tiles > $OUT/tiles.log 2>&1
echo "tiles rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/tiles/tiles.md; grep -E "not built" $OUT/tiles.log
cd $OUT && tar czf all.tgz *.log tiles && rm -rf tiles
