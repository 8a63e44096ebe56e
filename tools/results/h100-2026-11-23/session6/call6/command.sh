# Session 6 call 6 (2026-11-23), carry [".whl"]: the Int8Conv2d compile / CUDA-graph test after the fix for
# Dynamo (no data_ptr() check while traced), with the three bf16 ReLU tile-K-64 conv kernels.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1 ) &
python3 tools/generate_kernels.py --conv --compile --jobs 3 --name sm90_conv2d_fprop_int8_bf16_relu_t128x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu_t128x64x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_relu_t64x128x64_c1x1x1_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels.log
wait; echo "builds at ${SECONDS}s"
CUTLASS_GEMM_JIT=0 timeout $((150 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_conv_int8_gpu.py -k "compile_fullgraph or typed_errors" > $OUT/gpu_tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests.log
