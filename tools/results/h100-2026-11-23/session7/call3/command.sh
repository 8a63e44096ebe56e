# Session 7 call 3 (2026-11-23), carry [".whl"]: (1) stream-K / split-K kernels of the SM90 scaled family: GPU tests
# (8 kernels) and the sweep of tools/streamk_sweep.py (20 kernels: decode 16x8192x8192, 1x4096x14336, 16x14336x4096
# for int8 and e4m3; 512x4096x{4096,14336} e4m3) with baselines; (2) the weight-only stream kernels (extension):
# GPU tests of every variant and the variant sweep (tools/bench_wo_sweep.py).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 16 $(python3 tools/streamk_sweep.py names tests) $(python3 tools/streamk_sweep.py names sweep) 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
echo "kernels at ${SECONDS}s"; tail -n 2 $OUT/kernels.log
wait; echo "builds at ${SECONDS}s"; tail -n 1 $OUT/extension.log
export CUTLASS_GEMM_JIT=0
timeout 90 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_streamk_gpu.py > $OUT/gpu_tests_streamk.log 2>&1
echo "streamk tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_streamk.log
mkdir -p $OUT/decode $OUT/mid $OUT/wo
timeout 60 python3 tools/benchmark.py tiles --dtypes int8,e4m3 --shapes $(python3 tools/streamk_sweep.py shapes decode) --choices $(python3 tools/streamk_sweep.py choices decode) --out $OUT/decode > $OUT/sweep_decode.log 2>&1
echo "decode sweep rc=$? at ${SECONDS}s"
timeout 60 python3 tools/benchmark.py tiles --dtypes e4m3 --shapes $(python3 tools/streamk_sweep.py shapes mid) --choices $(python3 tools/streamk_sweep.py choices mid) --out $OUT/mid > $OUT/sweep_mid.log 2>&1
echo "mid sweep rc=$? at ${SECONDS}s"
timeout $((480 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/gpu_tests_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_wo.log
timeout $((590 - SECONDS)) python3 tools/bench_wo_sweep.py --out $OUT/wo > $OUT/wo_sweep.log 2>&1
echo "wo sweep rc=$? at ${SECONDS}s"
