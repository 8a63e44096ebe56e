# Session 59 (2026-11-29), carry [".whl"] (nvidia-cutlass 4.2.0.0, pydot 4.0.1, treelib 1.8.0, nvmath-python 1.0.0),
# run from the repository root:
#   bash tools/results/h200-2026-11-29/session59/suite.sh STATE [fresh]
# The whole GPU suite through tools/gpu_suite.py on one machine of 4 H200s (kind nvidia-h200-x4, 64 cores): every
# kernel the suite lists beside the torch extension, 56 builds at once, and every tests/*_gpu.py file (slow ones in
# shards), 2 pytest processes per GPU, the files the per-file record covers (tools/suite_kernels_by_file.json)
# starting while the pool still builds. "fresh" empties the kernel cache (and torch's inductor cache) first: a new
# user's machine. Without it the run continues STATE on the warm machine (the next call, issued at once).
# DEADLINE (seconds, default 560) and JOBS (nvcc jobs, default 56), added after calls 1-3 (which ran with the defaults)
# for the short probe of call 4 on 2 H200s (32 cores): DEADLINE=200 JOBS=28.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s59
STATE=$1
if [ "${2:-}" = fresh ] || [ ! -d $STATE ]; then
  echo "fresh machine or fresh start: empty kernel cache" | tee $OUT/fresh.txt
  rm -rf $CUTLASS_GEMM_CACHE_DIR $STATE /tmp/torchinductor_* /tmp/site59
fi
mkdir -p $CUTLASS_GEMM_CACHE_DIR
if [ ! -d /tmp/site59 ]; then
  for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site59 $w > /dev/null 2>&1 || echo "skipped $w"; done
fi
export PYTHONPATH=/tmp/site59:$PWD
(nvidia-smi --query-gpu=index,name,memory.total,clocks.max.sm,clocks.max.mem,power.limit --format=csv; nproc; free -g | head -2;
 python3 -c "import torch; p=torch.cuda.get_device_properties(0); print(torch.__version__, p.name, p.multi_processor_count, 'SMs', getattr(p, 'L2_cache_size', 0) >> 20, 'MiB L2')";
 python3 -c "import transformers, torchvision; print('transformers', transformers.__version__, 'torchvision', torchvision.__version__)";
 nvcc --version | tail -2; git log --oneline -1 2>/dev/null) > $OUT/machine.txt 2>&1
echo "kernel cache before: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries" | tee $OUT/cache_before.txt
python3 tools/gpu_suite.py $OUT --state $STATE --jobs ${JOBS:-56} --per-gpu 2 --deadline ${DEADLINE:-560}
echo "suite rc=$? at ${SECONDS}s"
echo "kernel cache after: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries, $(du -sh $CUTLASS_GEMM_CACHE_DIR | cut -f1)" | tee $OUT/cache_after.txt
grep -hE "^(FAILED|ERROR)" $OUT/*.log | head -40
cp $STATE/results.md $OUT/results_so_far.md 2>/dev/null
cd $OUT && tar czf all.tgz --remove-files *.log kernels_loaded.txt 2>/dev/null; ls
