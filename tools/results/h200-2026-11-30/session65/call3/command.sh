# Session 65 call 3 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, on call 1's machine while still warm (kernel cache
# /tmp/cgc65a and suite state kept; the kernels these files need beyond call 1's are built by the pool here): the test
# files of the layers' other routes (the fp8 and int8 blockwise layers, the weight-only layer's mixed-input and SM80
# upcast copies, the weight-only convolutions).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc65a
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 500 --jobs 30 --per-gpu 2 --pack \
  --files test_blockwise_gpu.py test_blockint8_sm90_gpu.py test_weight_only_mixed_gpu.py \
  test_weight_only_upcast_sm80_on_sm90_gpu.py test_conv_wo_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -40 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
