# Session 37 call 6 (2026-11-28), carry [".whl"], from the repository root: call 5 again where its files did not come
# back (too many files under $OUT: this time one archive), on the same warm machine if it still holds call 5's extension
# build, else an EMPTY cache again: the GEMV / per-block / PDL GPU test files (test_block_gemv_gpu.py's plan assertion
# fixed for the new rule), the sweep probe against the new rule, the decode benchmark old / new (call 5's old tree is
# rebuilt from call5/rule.patch if /tmp/oldrepo is gone).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s37
mkdir -p $CUTLASS_GEMM_CACHE_DIR
ls $CUTLASS_GEMM_CACHE_DIR > $OUT/cache_at_start.txt 2>&1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
[ -d /tmp/site37 ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site37 .whl/*.whl || exit 1
D=tools/results/h100-2026-11-28/session37
[ -d /tmp/oldrepo ] || { mkdir -p /tmp/oldrepo && cp -r cutlass_gemm tools generated /tmp/oldrepo/ && (cd /tmp/oldrepo && patch -s -R -p1 < $OLDPWD/$D/call5/rule.patch); } || exit 2
export PYTHONPATH=/tmp/site37:$PWD
timeout 300 python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_gemv_gpu.py tests/test_block_gemv_gpu.py tests/test_pdl_gpu.py > $OUT/t_gemv.log 2>&1
echo "tests at ${SECONDS}s" | tee $OUT/times.txt
[ -x ./devtmp/s37/swp2 ] && timeout 120 ./devtmp/s37/swp2 H100 2990 > $OUT/sw_probe_new_rule.txt 2>&1
S=1x4096x4096,16x4096x4096,16x6144x4096,16x7168x2048,1x8192x8192,8x8192x8192,16x8192x4096,16x8192x8192,1x28672x4096,16x14336x4096,16x1024x4096
(cd /tmp/oldrepo && PYTHONPATH=/tmp/site37:/tmp/oldrepo timeout 150 python3 tools/benchmark.py decode --no-tiles --shapes $S --out $OUT/dec_old > $OUT/dec_old.log 2>&1)
timeout 150 python3 tools/benchmark.py decode --no-tiles --shapes $S --out $OUT/dec_new > $OUT/dec_new.log 2>&1
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
tail -n 2 $OUT/t_gemv.log; grep -E "^(FAILED|ERROR)" $OUT/t_gemv.log | head -5
cd $OUT && tar czf all.tgz --remove-files * && ls
