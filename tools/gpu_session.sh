#!/usr/bin/env bash
# One GPU session: prebuild the SM90 default kernel set, run the GPU tests, benchmark.
# Usage (repository root, on a GPU machine):  bash tools/gpu_session.sh OUT_DIR [tests|bench|all] [pytest args...]
# Environment: QUICK=1 benchmarks four shapes only; UNCACHED=1 also times a first call that must build its kernel;
# KEEP_CACHE=1 tars the kernel cache into OUT_DIR.
# Kernels go to $CUTLASS_GEMM_CACHE_DIR (default ./.kcache here, so a later session can carry them).
set -u
OUT=${1:?output folder}; WHAT=${2:-all}; shift 2 || true
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
export CUTLASS_GEMM_CACHE_DIR=${CUTLASS_GEMM_CACHE_DIR:-$PWD/.kcache}
if [ -d .whl ] && ! python3 -c "import cutlass_cppgen" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
nvcc --version | tail -1
JOBS=$(( $(nproc) > 2 ? $(nproc) - 2 : 1 ))
if [ "$WHAT" != bench ]; then
  if [ -n "${UNCACHED:-}" ]; then  # builds its own kernel in a fresh cache, beside the other work
    python3 tools/benchmark.py first-call --uncached --out "$OUT" > /tmp/first_call_uncached.log 2>&1 &
  fi
  python3 tools/generate_kernels.py --sm 90 --compile --jobs "$JOBS" 2>&1 | grep -v "^nvcc:" | tail -30
  python3 -m pytest -m gpu -q -rfEs "$@" tests 2>&1 | tee "$OUT/gpu_tests.log" | tail -60
  wait; tail -8 /tmp/first_call_uncached.log 2>/dev/null
  # after the tests, so that both the kernel and the C++ fast path are in the cache
  python3 tools/benchmark.py first-call --out "$OUT" 2>&1 | tail -8
  [ -n "${KEEP_CACHE:-}" ] && tar czf "$OUT/kcache.tgz" -C "$(dirname "$CUTLASS_GEMM_CACHE_DIR")" "$(basename "$CUTLASS_GEMM_CACHE_DIR")"
fi
if [ "$WHAT" != tests ]; then
  python3 tools/benchmark.py overhead --out "$OUT" 2>&1 | tail -20
  python3 tools/benchmark.py shapes ${QUICK:+--quick} --cublaslt --out "$OUT" 2>&1 | grep -v "done in" | tail -90
  python3 tools/benchmark.py tiles --out "$OUT" 2>&1 | tail -32
fi
