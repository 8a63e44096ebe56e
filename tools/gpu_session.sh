#!/usr/bin/env bash
# One GPU session, as a new user meets the library: build the torch extension (fast path + quantization
# kernels) and the SM90 default kernel set into a kernel cache, run the GPU tests, then the benchmarks.
# Usage (repository root, on a GPU machine):  bash tools/gpu_session.sh OUT_DIR [tests|bench|all] [pytest args...]
# Environment: EMPTY_CACHE=1 starts from an empty kernel cache (default: keep what is there);
#   BENCH="quant layer overhead shapes" picks the benchmarks (BENCH= runs none; the demo always runs); QUICK=1 runs their quick variants;
#   KERNELS=subset builds only the kernels the benchmarks use, KERNELS=prebuilt the prebuilt set; EMIT=1 builds through generate_kernels.py;
#   CONV=1 also builds the 36 int8 implicit-GEMM conv kernels (tools/generate_kernels.py --conv --compile; the conv
#   GPU tests, BENCH=conv and the demo's ResNet-50 use them; otherwise each is built on first use);
#   SMS="90 80" also builds the SM80 family (with sm_90 machine code, CUTLASS_GEMM_SM80_ARCHS=80,90, which
#   tests/test_sm80_on_sm90_gpu.py needs; SMS=80 builds only that family); SMS="90 89" likewise the SM89 fp8 family
#   (CUTLASS_GEMM_SM89_ARCHS=89,90; tests/test_sm89_on_sm90_gpu.py builds it itself too).
# Kernels go to $CUTLASS_GEMM_CACHE_DIR (default /tmp/cutlass_gemm_cache).
set -u
OUT=${1:?output folder}; WHAT=${2:-all}; shift 2 || true
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export CUTLASS_GEMM_CACHE_DIR=${CUTLASS_GEMM_CACHE_DIR:-/tmp/cutlass_gemm_cache}
export CUTLASS_GEMM_SM80_ARCHS=${CUTLASS_GEMM_SM80_ARCHS:-80,90}
export CUTLASS_GEMM_SM89_ARCHS=${CUTLASS_GEMM_SM89_ARCHS:-89,90}
# Empty caches (EMPTY_CACHE), the carried wheels (.whl/) and OUT/machine.txt: tools/device_setup.py, as gpu_suite.py.
SETUP=$(python3 tools/device_setup.py "$OUT" ${EMPTY_CACHE:+--fresh}) || exit 1
eval "$SETUP"
cat "$OUT/machine.txt"
echo "session $(date -u +%FT%TZ) cache=$CUTLASS_GEMM_CACHE_DIR what=$WHAT" | tee "$OUT/session.txt"
JOBS=$(nproc)

# The extension builds beside the kernels (its own nvcc processes), timed for the record.
( t0=$(date +%s); python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" \
  && echo "extension ready in $(( $(date +%s) - t0 )) s" ) > "$OUT/extension.log" 2>&1 &
EXT=$!
# Kernels are compiled from the committed sources in generated/ (what tools/generate_kernels.py --compile
# does after regenerating them; EMIT=1 runs that script instead, emission included).
if [ -n "${EMIT:-}" ]; then
  ( time python3 tools/generate_kernels.py --sm 90 --compile --all --jobs "$JOBS" ) 2>&1 | grep -v "^nvcc:" | tail -4 | tee "$OUT/kernels.log"
else
  python3 - "$JOBS" "${KERNELS:-all}" ${SMS:-90} <<'EOF' 2>&1 | tail -3 | tee "$OUT/kernels.log"
import sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from cutlass_gemm.kernels import heuristics
from cutlass_gemm.runtime import build
cfgs = [c for sm in sys.argv[3:] for c in heuristics.default_configs(int(sm))]
if sys.argv[2] == "prebuilt":  # what tools/generate_kernels.py --compile builds
    cfgs = [c for sm in sys.argv[3:] for c in heuristics.prebuilt_configs(int(sm))]
if sys.argv[2] == "subset":  # what the benchmarks, the demo and the activation tests call: token x channel, bf16 out
    cfgs = [c for c in cfgs if c.out_dtype == "bf16" and c.scale_a == "token" and c.scale_b == "channel"]
t0 = time.time()
with ThreadPoolExecutor(int(sys.argv[1])) as pool:
    list(pool.map(lambda c: build.build(c, (Path(f"generated/sm{c.sm}") / f"{c.name}.cu").read_text()), cfgs))
print(f"built {len(cfgs)} kernels with {sys.argv[1]} jobs in {time.time() - t0:.0f} s")
EOF
fi
if [ -n "${CONV:-}" ]; then
  ( time python3 tools/generate_kernels.py --conv --compile --jobs "$JOBS" ) 2>&1 | grep -v "^nvcc:" | tail -4 \
    | tee "$OUT/conv_kernels.log"
fi
wait $EXT; cat "$OUT/extension.log" | tail -2

if [ "$WHAT" != bench ]; then
  python3 -m pytest -m gpu -q -rfEs "$@" tests 2>&1 | tee "$OUT/gpu_tests.log" | tail -40
fi
if [ "$WHAT" != tests ]; then
  for b in ${BENCH-quant layer}; do
    python3 tools/benchmark.py "$b" ${QUICK:+--quick} --out "$OUT" 2>&1 | tee "$OUT/bench_$b.log" | tail -30
  done
  python3 tools/demo.py 2>&1 | tee "$OUT/demo.log"
fi
