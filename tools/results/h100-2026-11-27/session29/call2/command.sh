# Session 29 call 2 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session29/call2/command.sh
# The per-block int8 partials read back by I2FP on SM86+ (bi8_gemm.cuh partial_value / kPartialStart; the decode GEMV's
# block form and the mma.sync kernel) against the 1.5 * 2^23 form before: a copy of the tree with partial_value.patch
# reversed builds the old extension beside the new one (the extension's name hashes its sources); then on GPU 0
# tools/bench_blockint8.py at M = 16, B = 64 and 128, old and new processes in turn, two rounds each; GPUs 1-3 the
# GEMV / per-block GPU test files on the new code. Everything under $OUT is packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s29b
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* /tmp/gen29* /tmp/oldrepo
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site29 .whl/*.whl || exit 1
D=tools/results/h100-2026-11-27/session29
mkdir -p /tmp/oldrepo && cp -r cutlass_gemm tools generated /tmp/oldrepo/ && (cd /tmp/oldrepo && patch -s -R -p1 < $OLDPWD/$D/call2/partial_value.patch) || exit 2
grep -c "kMagicBits;" /tmp/oldrepo/cutlass_gemm/runtime/csrc/bi8_gemm.cuh cutlass_gemm/runtime/csrc/bi8_gemm.cuh > $OUT/trees.txt
EXT='import time; t = time.time()
from cutlass_gemm.runtime import extension
print("extension", extension.name_and_dir()[0], extension.load() is not None, round(time.time() - t), "s")'
(PYTHONPATH=/tmp/site29:$PWD python3 -c "$EXT" > $OUT/ext_new.log 2>&1) &
(cd /tmp/oldrepo && PYTHONPATH=/tmp/site29:/tmp/oldrepo python3 -c "$EXT" > $OUT/ext_old.log 2>&1) &
export PYTHONPATH=/tmp/site29:$PWD
python3 tools/generate_kernels.py --blockwise --out /tmp/gen29 --compile --jobs 32 > $OUT/gen_blockwise.log 2>&1 &
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen29b --compile --jobs 8 > $OUT/gen_sm90.log 2>&1 &
wait
echo "built at ${SECONDS}s" | tee $OUT/times.txt
T="python3 -m pytest -q -m gpu -p no:cacheprovider"
CUDA_VISIBLE_DEVICES=1 timeout 330 $T tests/test_block_gemv_gpu.py tests/test_gemv_gpu.py > $OUT/t_gemv.log 2>&1 &
CUDA_VISIBLE_DEVICES=2 timeout 330 $T tests/test_blockint8_gpu.py tests/test_blockint8_sm90_gpu.py > $OUT/t_int8.log 2>&1 &
CUDA_VISIBLE_DEVICES=3 timeout 330 $T tests/test_block_linear_fast_gpu.py > $OUT/t_fast.log 2>&1 &
S=16x8192x8192,16x4096x14336,16x28672x4096,16x4096x4096,16x7168x2048
for r in 1 2; do
  for b in 64 128; do
    (cd /tmp/oldrepo && CUDA_VISIBLE_DEVICES=0 PYTHONPATH=/tmp/site29:/tmp/oldrepo timeout 100 python3 tools/bench_blockint8.py --block $b --shapes $S > $OUT/bench_old_b${b}_r$r.md 2>&1)
    CUDA_VISIBLE_DEVICES=0 timeout 100 python3 tools/bench_blockint8.py --block $b --shapes $S > $OUT/bench_new_b${b}_r$r.md 2>&1
    echo "round $r block $b at ${SECONDS}s" | tee -a $OUT/times.txt
  done
done
wait
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
for f in $OUT/t_*.log; do echo "== $f"; tail -n 1 $f; grep -E "^(FAILED|ERROR)" $f | head -5; done
cat $OUT/ext_*.log | grep extension
for f in $OUT/bench_*_r*.md; do echo "== $f"; grep -E "^\| 16 " $f | cut -d'|' -f2-11; done
cd $OUT && tar czf all.tgz --remove-files * && ls
