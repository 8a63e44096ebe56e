# Session 28 call 3 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session28/call3/command.sh
# The final code: the blockwise default set (40 fp8 kernels, changed text, and the 24 int8 ones) and the extension
# built in parallel, then every per-block GPU test file, one pytest process per GPU.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s28
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site28 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site28:$PWD
(python3 -c "
import time; t = time.time()
from cutlass_gemm.runtime import extension
print('extension', extension.load() is not None, round(time.time() - t), 's')" > $OUT/ext.log 2>&1) &
P1=$!
python3 tools/generate_kernels.py --blockwise --out /tmp/gen28 --compile --jobs 56 > $OUT/gen_blockwise.log 2>&1 &
P2=$!
wait $P1 $P2
echo "built at ${SECONDS}s" | tee $OUT/times.txt
T="timeout 330 python3 -m pytest -q -m gpu -p no:cacheprovider"
CUDA_VISIBLE_DEVICES=0 $T tests/test_blockwise_gpu.py > $OUT/t_blockwise.log 2>&1 &
CUDA_VISIBLE_DEVICES=1 $T tests/test_block_linear_fast_gpu.py > $OUT/t_fast.log 2>&1 &
CUDA_VISIBLE_DEVICES=2 $T tests/test_blockint8_sm90_gpu.py tests/test_blockint8_gpu.py > $OUT/t_int8.log 2>&1 &
CUDA_VISIBLE_DEVICES=3 $T tests/test_block_gemv_gpu.py > $OUT/t_gemv.log 2>&1 &
wait
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
echo "kernel cache: $(find $CUTLASS_GEMM_CACHE_DIR -name '*.so' | wc -l) libraries" | tee -a $OUT/times.txt
for f in $OUT/t_*.log; do echo "== $f"; tail -n 3 $f; grep -E "^(FAILED|ERROR)" $f | head -5; done
