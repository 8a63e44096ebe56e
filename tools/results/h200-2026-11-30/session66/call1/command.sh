# Session 66 call 1 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, from the repository root:
#   bash tools/results/h200-2026-11-30/session66/call1.sh (this file, moved to call1/command.sh after the call)
# From an EMPTY kernel cache through tools/gpu_suite.py: the compile-first file with its new GPU twins (the public ops
# compiled by Inductor with a marked dynamic batch, torch.export and an AOTInductor package on the GPU), and the test
# files of the layers' eager paths that commit cffb7bd (w8a8_linear / block_linear routing) touched.
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc66a
mkdir -p $OUT/s && python3 tools/gpu_suite.py $OUT/s --deadline 530 --jobs 30 --per-gpu 2 --fresh --pack \
  --files test_compile_first_gpu.py test_nn_gpu.py test_llama_gpu.py test_block_linear_fast_gpu.py \
  test_blockint8_sm90_gpu.py test_rowpad_gpu.py > $OUT/suite.log 2>&1; echo rc=$?
tail -40 $OUT/s/suite.md 2>/dev/null || tail -20 $OUT/suite.log
