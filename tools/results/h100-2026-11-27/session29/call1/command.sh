# Session 29 call 1 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session29/call1/command.sh
# The int8 per-block promotion with I2FP (blockwise generator 7): I2FP's rate (i2fp_rate.cu); the blockwise default
# set (64), the 4 other int8 candidates, the SM90 prebuilt set and the extension built on an empty cache; then
# GPU 0: exp_i2fp.py (session 28's form against the I2FP form, both selected int8 kernels, alternating with per-token
# int8), GPU 1: tools/bench_blockint8.py --choices, GPUs 2-3: the per-block GPU test files.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s29
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* /tmp/gen29* /tmp/exp29
mkdir -p $CUTLASS_GEMM_CACHE_DIR /tmp/exp29
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site29 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site29:$PWD
D=tools/results/h100-2026-11-27/session29
(nvidia-smi --query-gpu=index,name,clocks.max.sm,power.limit --format=csv; nproc; python3 -c "import torch; print(torch.__version__)"; nvcc --version | tail -2) > $OUT/machine.txt 2>&1
(nvcc -arch=sm_90a -O3 -o /tmp/i2fp $D/i2fp_rate.cu && CUDA_VISIBLE_DEVICES=0 /tmp/i2fp) > $OUT/i2fp_rate.txt 2>&1 &
(python3 -c "
import time; t = time.time()
from cutlass_gemm.runtime import extension
print('extension', extension.load() is not None, round(time.time() - t), 's')" > $OUT/ext.log 2>&1) &
python3 tools/generate_kernels.py --blockwise --out /tmp/gen29 --compile --jobs 40 > $OUT/gen_blockwise.log 2>&1 &
NAMES=$(python3 -c "
from cutlass_gemm.kernels import blockwise as bk
d = {c.name for c in bk.default_configs()}
print(' '.join('--name ' + c.name for c in bk.s8_candidate_configs('bf16', 'k') + bk.s8_candidate_configs('bf16', 'mn') if c.name not in d))")
python3 tools/generate_kernels.py --blockwise --out /tmp/gen29c --compile $NAMES --jobs 4 > $OUT/gen_cand.log 2>&1 &
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen29b --compile --jobs 8 > $OUT/gen_sm90.log 2>&1 &
python3 $D/exp_i2fp.py /tmp/exp29 build > $OUT/exp_build.log 2>&1 &
wait
echo "built at ${SECONDS}s" | tee $OUT/times.txt
cat $OUT/i2fp_rate.txt
T="python3 -m pytest -q -m gpu -p no:cacheprovider"
CUDA_VISIBLE_DEVICES=2 timeout 300 $T tests/test_blockint8_sm90_gpu.py tests/test_blockint8_gpu.py > $OUT/t_int8.log 2>&1 &
CUDA_VISIBLE_DEVICES=3 timeout 300 $T tests/test_blockwise_gpu.py > $OUT/t_blockwise.log 2>&1 &
CUDA_VISIBLE_DEVICES=1 timeout 330 python3 tools/bench_blockint8.py --choices --shapes 64x8192x8192,256x8192x8192,1024x8192x8192,2048x8192x8192,4096x7168x2048 > $OUT/bench.md 2>&1 &
CUDA_VISIBLE_DEVICES=0 timeout 330 python3 $D/exp_i2fp.py /tmp/exp29 > $OUT/exp_i2fp.md 2>&1
echo "exp done at ${SECONDS}s" | tee -a $OUT/times.txt
wait
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
for f in $OUT/t_*.log; do echo "== $f"; tail -n 2 $f; grep -E "^(FAILED|ERROR)" $f | head -5; done
cat $OUT/exp_i2fp.md; cat $OUT/bench.md | cut -c1-200
