# Session 27 (2026-11-27), carry [".whl"] (nvidia-cutlass 4.2.0.0, pydot 4.0.1, treelib 1.8.0; calls 1-3 lacked nvmath-python
# 1.0.0, which the cuBLASLt tests need: add it to .whl), run from the repository root:
#   bash tools/results/h100-2026-11-27/session27/suite.sh STATE [fresh]
# The whole GPU suite through tools/gpu_suite.py on one machine of 4 H100s (64 cores): every kernel the suite uses
# (349, 40 builds at once, each two nvcc passes) beside the torch extension, then every tests/*_gpu.py file (slow
# ones in shards), 2 pytest processes per GPU. "fresh" empties the kernel cache (and torch's inductor cache) first:
# a new user's machine. Without it the run continues STATE on the warm machine (a second call), or, with a new
# STATE, runs everything again against the cache the earlier call filled (the prebuilt-cache run).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s27
STATE=$1
if [ "${2:-}" = fresh ]; then rm -rf $CUTLASS_GEMM_CACHE_DIR $STATE /tmp/torchinductor_*; fi
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site27 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site27:$PWD
(nvidia-smi --query-gpu=index,name,clocks.max.sm,power.limit --format=csv; nproc; python3 -c "import torch; print(torch.__version__)"; nvcc --version | tail -2; git log --oneline -1 2>/dev/null) > $OUT/machine.txt 2>&1
echo "kernel cache before: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries" | tee $OUT/cache_before.txt
python3 tools/gpu_suite.py $OUT --state $STATE --jobs 40 --per-gpu 2 --deadline 560
echo "suite rc=$? at ${SECONDS}s"
echo "kernel cache after: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries, $(du -sh $CUTLASS_GEMM_CACHE_DIR | cut -f1)" | tee $OUT/cache_after.txt
grep -hE "^(FAILED|ERROR)" $OUT/*.log | head -30
cd $OUT && tar czf all.tgz --remove-files *
