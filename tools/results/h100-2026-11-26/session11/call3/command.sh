# Session 11 call 3 (2026-11-26), carry [".whl"] (nvidia-cutlass 4.2.0.0, pydot 4.0.1, treelib 1.8.0), fresh machine,
# empty kernel cache: fp8 (e4m3) tile sweep at the shapes where fp8 trails or ties torch._scaled_mm (512x4096x{4096,14336}
# 0.90/0.95x, 16x14336x4096 1.01x, 128/512x8192x8192 1.05x in session6/call4): 14 data-parallel SM90 tiles, built first
# with generate_kernels.py (16 jobs), then tools/benchmark.py tiles (JIT off) beside torch._scaled_mm rowwise + bias.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site11 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site11:$PWD
C="128x128x128/c1x2x1/pingpong,128x128x128/c1x1x1/pingpong,128x128x128/c2x1x1/pingpong,64x128x128/c1x1x1/pingpong,64x256x128/c1x1x1/pingpong,128x64x128/c1x1x1/pingpong,128x128x256/c1x1x1/pingpong,64x128x256/c1x1x1/pingpong,128x128x128/c1x1x1/cooperative,128x128x128/c1x2x1/cooperative,64x256x128/c1x2x1/pingpong,128x256x128/c1x1x1/pingpong,64x128x128/c1x2x1/pingpong,128x128x256/c1x2x1/pingpong"
NAMES=$(python3 - "$C" <<'PY'
import sys
sys.path.insert(0, "tools")
from benchmark import parse_choice
from cutlass_gemm.kernels import heuristics
print(" ".join("--name " + heuristics.make_config(90, "scaled_bias", "bf16", parse_choice(c), a_dtype="e4m3").name for c in sys.argv[1].split(",")))
PY
)
python3 tools/generate_kernels.py --out /tmp/gen11 --compile --jobs 16 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels rc=$? at ${SECONDS}s"; tail -n 3 $OUT/kernels.log
export CUTLASS_GEMM_JIT=0
mkdir -p $OUT/tiles
timeout $((580 - SECONDS)) python3 tools/benchmark.py tiles --dtypes e4m3 --shapes 512x4096x4096,512x4096x14336,256x4096x4096,1024x4096x4096,512x8192x8192,128x8192x8192,16x14336x4096 --choices "$C" --out $OUT/tiles > $OUT/tiles.log 2>&1
echo "tiles rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/tiles/tiles.md; grep -E "best|not built" $OUT/tiles.log
cd $OUT && tar czf all.tgz *.log tiles && rm -rf tiles
