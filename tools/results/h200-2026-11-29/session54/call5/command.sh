# Session 54 call 5 (kind nvidia-h200), EMPTY kernel cache (a fresh machine), carry [".whl"]: the final kernel source
# (the conv activation copies moved to wo_conv_rows.cuh; ptxas reports the same registers as before for every conv
# kernel). The extension built, then side by side: tests/test_conv_wo_gpu.py, tests/test_weight_only_gpu.py in 2
# shards and tests/test_wo_variants_gpu.py in 2 shards (the GEMM form of wo_gemm.cuh, which now declares the unused
# conv rows), JIT on (nothing beyond the extension is needed).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc54e
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site54 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site54:$PWD
L=/tmp/L54e; rm -rf $L; mkdir -p $L
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
R=$((400 - SECONDS))
t() { local name=$1 shard=$2; shift 2; (CUTLASS_GEMM_TEST_SHARD=$shard timeout $R $T "$@" > $L/$name.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/$name.log) & }
t conv_wo "" tests/test_conv_wo_gpu.py
for i in 0 1; do t weight_only.$i $i/2 tests/test_weight_only_gpu.py; done
for i in 0 1; do t wo_variants.$i $i/2 tests/test_wo_variants_gpu.py; done
wait
for f in $L/*.log; do case $f in *ext.log) continue;; esac
  echo "$(basename $f): $(grep -E '[0-9]+ (passed|failed|error)' $f | tail -n 1) $(tail -n 1 $f)"; done
grep -h "rel. error" $L/conv_wo.log | cut -c1-220
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
tar czf $OUT/logs.tgz -C $L .
