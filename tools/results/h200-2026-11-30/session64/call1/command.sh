# Session 64 call 1 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, from the repository root:
#   bash tools/results/h200-2026-11-30/session64/call1.sh (this file, moved to call1/command.sh after the call)
# cg_launch's m_padded (GEMM launcher ABI 4, generator 7): a padded scaled_mm call computes its whole-tile rows and
# stores the caller's M only, straight into `out`. From an EMPTY kernel cache, through tools/gpu_suite.py (the
# extension and the files' recorded kernels built beside the tests): the test files of every path the change touches
# (the ops' padded and unpadded calls, the layers' one-call path, stream-K, the GEMV's launcher, SM80 kernels with sm_90
# code, the tiny Llama, the GEMMs' early launches).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc64a
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 520 --jobs 30 --per-gpu 2 --fresh --pack \
  --files test_rowpad_gpu.py test_ops_gpu.py test_nn_gpu.py test_streamk_gpu.py test_gemv_gpu.py test_llama_gpu.py \
  test_pdl_gemm_gpu.py test_sm80_on_sm90_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -30 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
