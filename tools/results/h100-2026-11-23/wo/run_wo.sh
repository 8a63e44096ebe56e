#!/usr/bin/env bash
# One device session for the weight-only small-M kernel (run from the repository root on the GPU machine,
# with devtmp/ carried so the prebuilt harness comes along):
#   bash tools/results/h100-2026-11-23/wo/run_wo.sh $OUT [harness|tests|bench|all]
# harness: devtmp/wb/wb (checks every format, then timings + tuning rows) -> $OUT/wb.log
# tests:   builds the torch extension (fast path + quant + weight-only kernels; timed) and runs
#          tests/test_weight_only_gpu.py -> $OUT/extension.log, $OUT/gpu_tests.log
# bench:   python tools/benchmark.py weight_only --quick -> $OUT/bench/ (weight_only.md / .csv / .png)
set -u
OUT=${1:?output folder}; WHAT=${2:-all}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
export CUTLASS_GEMM_CACHE_DIR=${CUTLASS_GEMM_CACHE_DIR:-/tmp/cutlass_gemm_cache}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader | tee "$OUT/device.txt"
if [ "$WHAT" = harness ] || [ "$WHAT" = all ]; then
  # libcublas.so.13 of the nvidia-cublas wheel that CUDA torch installs
  LIBS=$(python3 -c "import glob, nvidia; print(':'.join(d for p in nvidia.__path__ for d in glob.glob(p + '/*/lib')))")
  ( time LD_LIBRARY_PATH=$LIBS${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} timeout 300 devtmp/wb/wb ) > "$OUT/wb.log" 2>&1
  grep -E "^(device|CHECKS|FAIL|copy)" "$OUT/wb.log" | head -40
  grep -E "^TIME .*\| default  " "$OUT/wb.log"
fi
if [ "$WHAT" = tests ] || [ "$WHAT" = all ]; then
  ( t0=$(date +%s); python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" \
    && echo "extension ready in $(( $(date +%s) - t0 )) s" ) > "$OUT/extension.log" 2>&1
  tail -2 "$OUT/extension.log"
  timeout 400 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_gpu.py 2>&1 \
    | tee "$OUT/gpu_tests.log" | tail -25
fi
if [ "$WHAT" = bench ] || [ "$WHAT" = all ]; then
  timeout 300 python3 tools/benchmark.py weight_only --quick --out "$OUT/bench" 2> "$OUT/bench.err" | tail -40
  grep -E "FAILED|FLAGGED" "$OUT/bench.err" | head
fi
