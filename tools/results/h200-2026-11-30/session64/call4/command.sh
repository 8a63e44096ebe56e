# Session 64 call 4 (2026-11-30), carry [".whl"], kind nvidia-h200, from the repository root:
#   bash tools/results/h200-2026-11-30/session64/call4.sh (this file, moved to call4/command.sh after the call)
# The third family emit.py's launcher serves, the SM89 kernels (sm_90 code; their cg_launch takes m_padded and computes
# m), and the extension's early launches, from an EMPTY kernel cache through tools/gpu_suite.py.
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc64d
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 330 --jobs 15 --fresh --pack \
  --files test_sm89_on_sm90_gpu.py test_pdl_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -12 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
