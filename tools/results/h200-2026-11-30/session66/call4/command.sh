# Session 66 call 4 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, from the repository root:
#   bash tools/results/h200-2026-11-30/session66/call4.sh (this file, moved to call4/command.sh after the call)
# From an EMPTY kernel cache: the two test files of call 3 again, after commit "Session 66 call 3" made the two-GPU
# test assert its row counts (48 / 48 / 48 / 24 / 4, ops >= 24) and the AOTI skip name the crash; and the new
# test_concurrent_gpu.py (every scheme's layers from 4 threads at once, each on its own stream, as the first calls);
# test_nn_gpu.py with its new tests (strided, empty, 1-D, float16 / float32 inputs under every linear scheme).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc66c
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 470 --jobs 30 --per-gpu 2 --fresh --pack \
  --files test_multi_gpu_gpu.py test_compile_first_gpu.py test_concurrent_gpu.py test_nn_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -30 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
