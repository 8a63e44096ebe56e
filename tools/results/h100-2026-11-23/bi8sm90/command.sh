# Per-block int8 on SM90 (branch bi8sm90), carry [".whl"], from the repository root:
#   bash tools/results/h100-2026-11-23/bi8sm90/command.sh
# Builds the 19 int8 kernels of the blockwise family (sm90_blockwise_s8_*), the extension and the two per-token
# int8 kernels the benchmark compares with; runs the new and the old per-block int8 GPU tests; times
# 16/2048/4096/8192 x 8192 x 8192 (every SM90 candidate, the extension kernel, per-token int8, bf16).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader > $OUT/device.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 2 --name sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 --name sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
NAMES=$(python3 -c "from cutlass_gemm.kernels.blockwise import int8_default_configs as d; print(' '.join('--name ' + c.name for c in d()))")
python3 tools/generate_kernels.py --blockwise --compile --jobs 13 $NAMES 2>&1 | grep -v "^nvcc:" > $OUT/kernels_s8.log
echo "s8 kernels at ${SECONDS}s"; tail -n 2 $OUT/kernels_s8.log
wait; echo "builds done at ${SECONDS}s"; tail -qn 1 $OUT/kernels_gemm.log $OUT/extension.log
export CUTLASS_GEMM_JIT=0
timeout $((420 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockint8_sm90_gpu.py tests/test_blockint8_gpu.py > $OUT/gpu_tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests.log
timeout $((585 - SECONDS)) python3 tools/bench_blockint8.py --quick > $OUT/bench_blockint8.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; cat $OUT/bench_blockint8.log
