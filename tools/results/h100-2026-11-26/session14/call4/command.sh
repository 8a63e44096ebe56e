# Session 14 call 4 (2026-11-26), carry [".whl", "devtmp/cache_s14"]: after cutting the host path of the layer on
# its mixed-input copy (eager calls skip the dispatcher and the second check; the kernel choice, the SM90 test and
# the device guard no longer cost per call; torch's raw stream accessor). Kernels: the 32 of SELECTION built on the
# CPU machine (generate_kernels.py re-verifies them), the extension built here. (1) host/wo_host.py: wall and
# device time of the layer vs the op through the dispatcher vs bf16, and a profile; (2) the weight-only GPU tests;
# (3) benchmark.py weight_only (call 3's mixed rows were host-bound: wall 90-160 us per call).
set -u
SECONDS=0
S=tools/results/h100-2026-11-26/session14
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14d
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s14/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen14 --compile --jobs 14 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
wait; tail -n 1 $OUT/extension.log
timeout 150 python3 $S/host/wo_host.py $OUT/host > $OUT/wo_host.log 2>&1
echo "wo_host rc=$? at ${SECONDS}s"; grep "^{" $OUT/wo_host.log | cut -c1-200
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_wo.log)"
timeout $((585 - SECONDS)) python3 tools/benchmark.py weight_only --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
