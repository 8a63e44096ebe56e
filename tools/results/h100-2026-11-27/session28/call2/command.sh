# Session 28 call 2 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session28/call2/command.sh
# After call 1: SELECTION_S8 (64x128 pingpong to 128 rows, then 128x128 c2x1), row-major scale_a turned
# column-major at depth (relayout_sfa), the test's bias seeded. Builds the extension, the selected int8 kernels
# (bf16, both layouts) and the SM90 prebuilt set; the int8 SM90 tests and the per-block layer fast-path tests on
# GPUs 1-2, exp_variants.py (what the promotion costs) on GPU 0.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s28
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site28 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site28:$PWD
D=tools/results/h100-2026-11-27/session28
(python3 -c "
import time; t = time.time()
from cutlass_gemm.runtime import extension
print('extension', extension.load() is not None, round(time.time() - t), 's')" > $OUT/ext.log 2>&1) &
P1=$!
NAMES=$(python3 -c "
from cutlass_gemm.kernels import blockwise as bk
print(' '.join(sorted({'--name ' + bk.select_config(o, m, a, s, 's8').name for o in ('bf16', 'f16') for m in (64, 4096)
                       for a in ('none', 'relu', 'relu6', 'gelu_tanh', 'silu') for s in ('k', 'mn')})))")
python3 tools/generate_kernels.py --blockwise --out /tmp/gen28 --compile $NAMES --jobs 40 > $OUT/gen_s8.log 2>&1 &
P2=$!
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen28b --compile --jobs 16 > $OUT/gen_sm90.log 2>&1 &
P3=$!
mkdir -p /tmp/exp28 && CUDA_VISIBLE_DEVICES=0 timeout 540 python3 $D/exp_variants.py /tmp/exp28 > $OUT/exp_variants.md 2>&1 &
wait $P1 $P2 $P3
echo "built at ${SECONDS}s" | tee $OUT/times.txt
CUDA_VISIBLE_DEVICES=1 timeout 380 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_blockint8_sm90_gpu.py > $OUT/t_sm90.log 2>&1 &
CUDA_VISIBLE_DEVICES=2 timeout 380 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_block_linear_fast_gpu.py > $OUT/t_fast.log 2>&1 &
CUDA_VISIBLE_DEVICES=3 timeout 380 python3 tools/bench_blockint8.py --shapes 17x8192x8192,64x8192x8192,128x8192x8192,2048x8192x8192,4096x7168x2048 > $OUT/bench.md 2>&1 &
wait
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
for f in $OUT/t_*.log; do echo "== $f"; tail -n 4 $f; done
cat $OUT/exp_variants.md $OUT/bench.md
