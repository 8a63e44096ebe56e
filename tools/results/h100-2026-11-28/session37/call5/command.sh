# Session 37 call 5 (2026-11-28), carry [".whl", "devtmp/s37/swp2"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-28/session37/call5/command.sh
# The GEMV launch rule of call 4's sweep (gemv_w8a8.cu choose(); rule.patch = this call's change of the library): a copy
# of the tree with rule.patch reversed builds the old extension beside the new one (the extension's name hashes its
# sources); the sweep probe again against the new rule (devtmp/s37/swp2: probe/sw_probe.cu, from gx_probe.cu + sw_probe.diff, built in this tree); the GEMV /
# per-block / PDL GPU test files on the new code; then the decode, per-block int8 and blockwise benchmarks at M <= 16,
# old and new processes in turn, two rounds.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s37
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* /tmp/oldrepo
mkdir -p $CUTLASS_GEMM_CACHE_DIR
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site37 .whl/*.whl || exit 1
D=tools/results/h100-2026-11-28/session37
mkdir -p /tmp/oldrepo && cp -r cutlass_gemm tools generated /tmp/oldrepo/ && (cd /tmp/oldrepo && patch -s -R -p1 < $OLDPWD/$D/call5/rule.patch) || exit 2
grep -c "Shape choose" /tmp/oldrepo/cutlass_gemm/runtime/csrc/gemv_w8a8.cu cutlass_gemm/runtime/csrc/gemv_w8a8.cu > $OUT/trees.txt
EXT='import time; t = time.time()
from cutlass_gemm.runtime import extension
print("extension", extension.name_and_dir()[0], extension.load() is not None, round(time.time() - t), "s")'
(PYTHONPATH=/tmp/site37:$PWD python3 -c "$EXT" > $OUT/ext_new.log 2>&1) &
(cd /tmp/oldrepo && PYTHONPATH=/tmp/site37:/tmp/oldrepo python3 -c "$EXT" > $OUT/ext_old.log 2>&1) &
wait
echo "built at ${SECONDS}s" | tee $OUT/times.txt
timeout 120 ./devtmp/s37/swp2 "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" 2990 > $OUT/sw_probe_new_rule.txt 2>&1
echo "probe at ${SECONDS}s" | tee -a $OUT/times.txt
export PYTHONPATH=/tmp/site37:$PWD
timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_gemv_gpu.py tests/test_block_gemv_gpu.py tests/test_pdl_gpu.py > $OUT/t_gemv.log 2>&1
echo "tests at ${SECONDS}s" | tee -a $OUT/times.txt
S=1x4096x4096,16x4096x4096,16x6144x4096,16x7168x2048,1x8192x8192,8x8192x8192,16x8192x4096,16x8192x8192,1x28672x4096,16x14336x4096,16x1024x4096
SB=16x4096x4096,16x6144x4096,16x7168x2048,16x8192x4096,16x8192x8192,16x14336x4096
for r in 1 2; do
  (cd /tmp/oldrepo && PYTHONPATH=/tmp/site37:/tmp/oldrepo timeout 150 python3 tools/benchmark.py decode --no-tiles --shapes $S --out $OUT/dec_old_r$r > $OUT/dec_old_r$r.log 2>&1)
  timeout 150 python3 tools/benchmark.py decode --no-tiles --shapes $S --out $OUT/dec_new_r$r > $OUT/dec_new_r$r.log 2>&1
  (cd /tmp/oldrepo && PYTHONPATH=/tmp/site37:/tmp/oldrepo timeout 100 python3 tools/bench_blockint8.py --block 128 --shapes $SB > $OUT/bi8_old_r$r.md 2>&1)
  timeout 100 python3 tools/bench_blockint8.py --block 128 --shapes $SB > $OUT/bi8_new_r$r.md 2>&1
  echo "round $r at ${SECONDS}s" | tee -a $OUT/times.txt
done
(cd /tmp/oldrepo && PYTHONPATH=/tmp/site37:/tmp/oldrepo timeout 150 python3 tools/benchmark.py blockwise --no-tiles --shapes $SB --out $OUT/bw_old > $OUT/bw_old.log 2>&1)
timeout 150 python3 tools/benchmark.py blockwise --no-tiles --shapes $SB --out $OUT/bw_new > $OUT/bw_new.log 2>&1
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
tail -n 3 $OUT/t_gemv.log; grep -E "^(FAILED|ERROR)" $OUT/t_gemv.log | head -5
cat $OUT/ext_*.log | grep extension
for f in $OUT/bi8_*_r*.md; do echo "== $f"; grep -E "^\| 16 " $f | cut -d'|' -f2-8; done
