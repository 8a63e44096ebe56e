export CUTLASS_GEMM_CACHE_DIR=/tmp/cgc61v; rm -f /tmp/suite61v/test_ops_gpu.py.*; python3 tools/gpu_suite.py $OUT --state /tmp/suite61v --jobs 28 --deadline 400 --pack --files test_ops_gpu
