# Session 10 call 2 (2026-11-24), carry [".whl"], fresh machine, empty kernel cache: (1) the GEMV harness
# (session10/gemv/gemv_bench.cu: register kernel vs shared-memory ring kernel, every output against a naive
# int32 reference) while the extension (call 1's offset bug fixed: the lane's 16 * t was added twice) and two
# CUTLASS 64x64 kernels build; (2) the GEMV GPU tests; (3) tools/benchmark.py decode.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s10_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site10 .whl/*.whl
export PYTHONPATH=/tmp/site10:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen10 --compile --jobs 4 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log; echo "gemm kernels at ${SECONDS}s" >> $OUT/kernels_gemm.log ) &
nvcc -std=c++17 -O3 -arch=sm_90 -I cutlass_gemm/runtime/csrc tools/results/h100-2026-11-24/session10/gemv/gemv_bench.cu -o /tmp/gemv_bench && /tmp/gemv_bench > $OUT/gemv_bench.log 2>&1
echo "harness rc=$? at ${SECONDS}s"; cat $OUT/gemv_bench.log
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_gemv_gpu.py > $OUT/gpu_tests_gemv.log 2>&1
echo "gemv tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_gemv.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_gemv.log | head
mkdir -p $OUT/bd
timeout $((580 - SECONDS)) python3 tools/benchmark.py decode --out $OUT/bd > $OUT/bench_decode.log 2>&1
echo "bench decode rc=$? at ${SECONDS}s"; tail -n 30 $OUT/bench_decode.log
cd $OUT && tar czf all.tgz *.log bd && rm -rf bd
