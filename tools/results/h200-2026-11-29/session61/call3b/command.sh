export CUTLASS_GEMM_CACHE_DIR=/tmp/cgc61v; python3 tools/gpu_suite.py $OUT --state /tmp/suite61v --jobs 28 --deadline 400 --pack --files test_ops_gpu
