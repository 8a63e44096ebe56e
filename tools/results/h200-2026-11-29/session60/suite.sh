# Session 60 (2026-11-29), carry [".whl"] (nvidia-cutlass 4.2.0.0, pydot 4.0.1, treelib 1.8.0, nvmath-python 1.0.0),
# run from the repository root:
#   bash tools/results/h200-2026-11-29/session60/suite.sh STATE [fresh]
# The GPU test files this session's changes touch, through tools/gpu_suite.py --files on one machine of 2 H200s
# (kind nvidia-h200-x2, 32 cores): session 59's nn refactor (from_float / load_weight_state in every layer) and
# this session's test helpers (tests/gpu_helpers.py: eager_without_sync, capture, replays_match_eager, refill,
# family_on_sm90) and op registration (cutlass_gemm/ops/_registry.py) reach all but these files, left out:
# test_wo_variants_gpu.py (1355 s, touched by none of it), test_every_default_kernel_gpu.py (kernel coverage, 64
# kernels of its own), test_cublaslt_gpu.py, test_quant_gpu.py and test_weight_only_mixed_gpu.py (1518 s; its
# layer tests, the ones this session changed, run after the suite through pytest -k layer: mixed.sh).
# The pool builds only the kernels the chosen files' records name. "fresh" empties the kernel cache (and torch's
# inductor cache) first: a new user's machine. Without it the run continues STATE on the warm machine (the next call,
# issued at once). DEADLINE (seconds, default 560), JOBS (nvcc jobs, default 28).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s60
STATE=$1
FILES="test_activation_gpu test_block_gemv_gpu test_block_linear_fast_gpu test_blockint8_gpu test_blockint8_sm90_gpu
 test_blockwise_gpu test_conv_chain_gpu test_conv_gpu test_conv_int8_gpu test_conv_int8_sm80_on_sm90_gpu
 test_conv_wo_gpu test_gemv_gpu test_llama_gpu test_nn_gpu test_ops_gpu test_pdl_blockwise_gpu test_pdl_conv_mixed_gpu
 test_pdl_gemm_gpu test_pdl_gpu test_quant_ops_gpu test_sm80_on_sm90_gpu test_sm89_on_sm90_gpu test_streamk_gpu
 test_weight_only_gpu test_weight_only_upcast_sm80_on_sm90_gpu"
if [ "${2:-}" = fresh ] || [ ! -d $STATE ]; then
  echo "fresh machine or fresh start: empty kernel cache" | tee $OUT/fresh.txt
  rm -rf $CUTLASS_GEMM_CACHE_DIR $STATE /tmp/torchinductor_* /tmp/site60
fi
mkdir -p $CUTLASS_GEMM_CACHE_DIR
if [ ! -d /tmp/site60 ]; then
  for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site60 $w > /dev/null 2>&1 || echo "skipped $w"; done
fi
export PYTHONPATH=/tmp/site60:$PWD
(nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv; nproc; free -g | head -2;
 python3 -c "import torch; p=torch.cuda.get_device_properties(0); print(torch.__version__, p.name, p.multi_processor_count, 'SMs', getattr(p, 'L2_cache_size', 0) >> 20, 'MiB L2')";
 python3 -c "import transformers, torchvision; print('transformers', transformers.__version__, 'torchvision', torchvision.__version__)";
 nvcc --version | tail -2; git log --oneline -1 2>/dev/null) > $OUT/machine.txt 2>&1
echo "kernel cache before: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries" | tee $OUT/cache_before.txt
python3 tools/gpu_suite.py $OUT --state $STATE --jobs ${JOBS:-28} --per-gpu 2 --deadline ${DEADLINE:-560} --files $FILES
echo "suite rc=$? at ${SECONDS}s"
echo "kernel cache after: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries, $(du -sh $CUTLASS_GEMM_CACHE_DIR | cut -f1)" | tee $OUT/cache_after.txt
grep -hE "^(FAILED|ERROR)" $OUT/*.log | head -40
cp $STATE/results.md $OUT/results_so_far.md 2>/dev/null
cd $OUT && tar czf all.tgz --remove-files *.log kernels_loaded.txt 2>/dev/null; ls
