# Session 63 call 4 (2026-11-30), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-30/session63/call4.sh (this file, moved to call4/command.sh after the call)
# The final code from an EMPTY kernel cache, the two GPU test files of the padded ops' neighbours this session's calls
# did not run: test_nn_gpu.py (the layers, which pad their own rows) and test_pdl_gemm_gpu.py (the GEMMs' early
# launches), through tools/gpu_suite.py (the extension and the files' recorded kernels built beside them).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc63d
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 330 --jobs 15 --fresh --pack \
  --files test_nn_gpu.py test_pdl_gemm_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -25 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
