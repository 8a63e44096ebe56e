# Session 66 call 5 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, from the repository root:
#   bash tools/results/h200-2026-11-30/session66/call5.sh (this file, moved to call5/command.sh after the call)
# From an EMPTY kernel cache: the new test_checkpoint_skeleton_gpu.py (a meta skeleton loaded with a quantized
# checkpoint, every scheme; a weight-only checkpoint without the mixed-input copy loaded into an SM90 skeleton), and
# test_nn_gpu.py after its last edit (one helper for the two session-66 tests' model).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc66d
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 290 --jobs 30 --per-gpu 2 --fresh --pack \
  --files test_checkpoint_skeleton_gpu.py test_nn_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -30 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
