# Session 14 call 2 (2026-11-26), carry [".whl", "devtmp/cache_s14"]: the mixed-input sweep's second round.
# 28 candidates (18 of call 1 + 10 built on the CPU machine: 256-row weight tiles and 2x1 clusters with stream-K
# for M 32..128, 128x256 c1x2 and 64x256 c2x1 for large M), the 8 kernels of the current default set built here
# beside the torch extension; the per-kernel float64 test on every candidate and the default set
# (CUTLASS_GEMM_TEST_MIXED_KERNELS), then the sweep at M 1..4096 x (8192x8192, 28672x4096, 4096x14336).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14b
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s14/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
NAMES="$(python3 tools/bench_mixed_sweep.py --names)"
DEFAULTS="$(python3 -c 'from cutlass_gemm.kernels.mixed_input import default_configs as d; print(" ".join("--name " + c.name for c in d()))')"
python3 tools/generate_kernels.py --mixed --out /tmp/gen14 --compile --jobs 14 $NAMES $DEFAULTS 2>&1 \
  | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait; tail -n 1 $OUT/extension.log
export CUTLASS_GEMM_TEST_MIXED_KERNELS="$(echo $NAMES | sed 's/--name //g')"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py -k every_selectable \
  > $OUT/test_mixed_kernels.log 2>&1
echo "per-kernel tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_mixed_kernels.log)"
timeout $((580 - SECONDS)) python3 tools/bench_mixed_sweep.py --out $OUT/sweep > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"
