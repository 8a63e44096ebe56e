# Session 66 call 3 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, from the repository root:
#   bash tools/results/h200-2026-11-30/session66/call3.sh (this file, moved to call3/command.sh after the call)
# From an EMPTY kernel cache through tools/gpu_suite.py: the new two-GPU test (the library on cuda:1 with cuda:0
# current: every scheme's layers eager, on a side stream, compiled, in a CUDA graph, a model split over both GPUs, the
# public ops) and the compile-first file again (its AOTI test now a child process that skips when torch's loader fails
# on a plain package). Then probe/fast_hits.py on GPU 0: does the compiled layer's op take the eager C++ path?
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc66b
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 470 --jobs 30 --per-gpu 2 --fresh --pack \
  --files test_multi_gpu_gpu.py test_compile_first_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -30 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
SETUP=$(python3 tools/device_setup.py $OUT) || exit 1; eval "$SETUP"
CUDA_VISIBLE_DEVICES=0 timeout 90 python3 tools/results/h200-2026-11-30/session66/probe/fast_hits.py $OUT/fast_hits.json \
  > $OUT/fast_hits.log 2>&1; echo fast_hits rc=$?; grep '^{' $OUT/fast_hits.log
