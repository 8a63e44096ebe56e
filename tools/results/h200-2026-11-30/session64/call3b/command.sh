# Session 64 call 3b (2026-11-30), carry [".whl"], kind nvidia-h200-x2: call 3's machine still warm (its kernel cache and
# tools/gpu_suite.py's state in /tmp kept), so no --fresh: the suite went on where call 3 stopped (5 kernels left to
# build, test_every_default_kernel_gpu.py's two shards not started). From the repository root:
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc64c; mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 300 --jobs 30 --per-gpu 2 --pack --files test_every_default_kernel_gpu.py test_activation_gpu.py test_rowpad_gpu.py > $OUT/suite.log 2>&1; echo rc=$?; tail -30 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
