# Session 65 call 1b (2026-11-30), carry [".whl"], kind nvidia-h200-x2, on call 1's machine while still warm (its
# kernel cache and suite state kept): call 1's test files that call did not finish (the three compile-first shards were
# cut by the deadline, four tasks not started).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc65a; mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 420 --jobs 30 --per-gpu 2 --pack --files test_compile_first_gpu.py test_nn_gpu.py test_llama_gpu.py test_block_linear_fast_gpu.py test_conv_gpu.py test_conv_int8_gpu.py test_rowpad_gpu.py test_block_gemv_gpu.py test_blockint8_gpu.py test_activation_gpu.py test_weight_only_gpu.py > $OUT/suite.log 2>&1; echo rc=$?; tail -40 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
