# Session 64 call 3 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, from the repository root:
#   bash tools/results/h200-2026-11-30/session64/call3.sh (this file, moved to call3/command.sh after the call)
# Every scaled GEMM kernel through the new launcher (GEMM launcher ABI 4) from an EMPTY kernel cache: the SM90 default
# sets of SM90 and SM80 (test_every_default_kernel_gpu.py; SM80 with sm_90 code), the activation epilogues, and the
# padded calls again on the final fast_path.cpp (launch_plan's workspace rows spelled once, call 1's arithmetic).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc64c
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 530 --jobs 30 --per-gpu 2 --fresh --pack \
  --files test_every_default_kernel_gpu.py test_activation_gpu.py test_rowpad_gpu.py \
  > $OUT/suite.log 2>&1; echo rc=$?
tail -30 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
