# Session 65 call 1 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, from the repository root:
#   bash tools/results/h200-2026-11-30/session65/call1.sh (this file, moved to call1/command.sh after the call)
# The layers' calls as one op each when traced (cutlass_gemm::w8a8_linear, block_linear, weight_only_layer,
# quantize_static_nhwc): from an EMPTY kernel cache through tools/gpu_suite.py, the new compile-first test (Inductor,
# automatic / marked dynamic shapes, CUDA graphs) and the test files of the layers' eager and compiled paths.
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc65a
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 530 --jobs 30 --per-gpu 2 --fresh --pack \
  --files test_compile_first_gpu.py test_nn_gpu.py test_llama_gpu.py test_block_linear_fast_gpu.py test_conv_gpu.py \
  test_conv_int8_gpu.py test_rowpad_gpu.py test_block_gemv_gpu.py test_blockint8_gpu.py test_activation_gpu.py \
  test_weight_only_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -40 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
