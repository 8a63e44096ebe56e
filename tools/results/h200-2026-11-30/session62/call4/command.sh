# Session 62 call 4 (2026-11-30), carry [".whl"], right after call 3 on the same (warm) machine: call 3's kernel cache
# (/tmp/cgc62c: the extension and 37 kernels, from EMPTY) reused; tools/gpu_suite.py builds the rest of what the files
# need while they run.
export CUTLASS_GEMM_CACHE_DIR=/tmp/cgc62c; mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 560 --jobs 16 --files test_ops_gpu.py test_nn_gpu.py test_rowpad_gpu.py --pack > $OUT/suite.log 2>&1; echo rc=$?; tail -25 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
