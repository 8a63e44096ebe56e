# Session 7 call 4 (2026-11-23), carry [".whl"]: (1) per-block int8 on SM90 through the blockwise family (int8
# wgmma + own promotion; 19 kernels): GPU tests and tools/bench_blockint8.py --quick; (2) weight-only: GPU tests with
# the variant table from call 3, and the weight_only benchmark at decode shapes; (3) the blockwise fp8 layer with
# column-major activation scales (tools/benchmark.py blockwise, 3 shapes).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
B=sm90_blockwise_e4m3_bf16
G="sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 sm90_e4m3_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8"
( python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 4 $(for n in $G; do echo --name $n; done) 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
S8=$(python3 -c "from cutlass_gemm.kernels.blockwise import int8_default_configs as d; print(' '.join('--name ' + c.name for c in d()))")
python3 tools/generate_kernels.py --blockwise --compile --jobs 14 $S8 --name ${B}_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0 --name ${B}_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0 --name ${B}_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_blockwise.log
echo "blockwise kernels at ${SECONDS}s"; tail -n 1 $OUT/kernels_blockwise.log
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/kernels_gemm.log $OUT/extension.log
export CUTLASS_GEMM_JIT=0
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockint8_sm90_gpu.py tests/test_blockint8_gpu.py > $OUT/gpu_tests_bi8.log 2>&1
echo "bi8 tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_bi8.log
timeout 100 python3 tools/bench_blockint8.py --quick > $OUT/bench_blockint8.log 2>&1
echo "bi8 bench rc=$? at ${SECONDS}s"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/gpu_tests_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_wo.log
mkdir -p $OUT/wo $OUT/blockwise
timeout 60 python3 tools/benchmark.py weight_only --shapes 1x8192x8192,4x8192x8192,16x8192x8192,64x8192x8192,1x28672x4096,16x28672x4096,1x4096x14336 --out $OUT/wo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
timeout $((585 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 16x7168x2048,4096x7168x2048,8192x8192x8192 --choices ${B}_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0 --out $OUT/blockwise > $OUT/bench_blockwise.log 2>&1
echo "blockwise bench rc=$? at ${SECONDS}s"
