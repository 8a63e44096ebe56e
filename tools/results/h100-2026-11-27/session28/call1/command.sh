# Session 28 call 1 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session28/call1/command.sh
# The SM90 int8 per-block kernels (kernels/cxx/blockwise_int8.hpp): build the 8 candidates (kernels/blockwise.py
# s8_candidate_configs, scale_a "k" and "mn"), the SM90 prebuilt set (the per-token kernels compared against) and the
# extension; then tests/test_blockint8*_gpu.py and the per-block layer tests on GPUs 1-3 while
# tools/bench_blockint8.py --choices runs alone on GPU 0.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s28
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* /tmp/gen28*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site28 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site28:$PWD
(nvidia-smi --query-gpu=index,name,clocks.max.sm,power.limit --format=csv; nproc; python3 -c "import torch; print(torch.__version__)"; nvcc --version | tail -2) > $OUT/machine.txt 2>&1
(python3 -c "
import time; t = time.time()
from cutlass_gemm.runtime import extension
print('extension', extension.load() is not None, round(time.time() - t), 's')" > $OUT/ext.log 2>&1) &
NAMES=$(python3 -c "
from cutlass_gemm.kernels import blockwise as bk
print(' '.join('--name ' + c.name for c in bk.s8_candidate_configs('bf16', 'k') + bk.s8_candidate_configs('bf16', 'mn')))")
python3 tools/generate_kernels.py --blockwise --out /tmp/gen28 --compile $NAMES --jobs 16 > $OUT/gen_s8.log 2>&1 &
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen28b --compile --jobs 16 > $OUT/gen_sm90.log 2>&1 &
wait
echo "built at ${SECONDS}s" | tee $OUT/times.txt
CUDA_VISIBLE_DEVICES=1 timeout 400 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_blockint8_sm90_gpu.py > $OUT/t_sm90.log 2>&1 &
CUDA_VISIBLE_DEVICES=2 timeout 400 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_blockint8_gpu.py > $OUT/t_bi8.log 2>&1 &
CUDA_VISIBLE_DEVICES=3 timeout 400 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_block_linear_fast_gpu.py tests/test_block_gemv_gpu.py > $OUT/t_fast.log 2>&1 &
CUDA_VISIBLE_DEVICES=0 timeout 420 python3 tools/bench_blockint8.py --choices --shapes 2048x8192x8192,4096x8192x8192,8192x8192x8192,4096x7168x2048,2048x28672x4096,1024x8192x8192,256x8192x8192,64x8192x8192 > $OUT/bench.md 2>&1
echo "bench done at ${SECONDS}s" | tee -a $OUT/times.txt
wait
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
tail -3 $OUT/t_*.log
cat $OUT/bench.md
