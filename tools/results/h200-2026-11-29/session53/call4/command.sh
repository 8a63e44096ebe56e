# Session 53 call 4 (kind nvidia-h200), call 3's warm machine (cache /tmp/cgc53b: both extensions, the probe's 3
# kernels), carry [".whl", "devtmp/old53"]: probe/host_layers.py new, old, new, old, now importing the package before
# tools/bench_common.py (call 3's runs all took the repository's package, and timed out before the model part).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc53b CUTLASS_GEMM_JIT=0
export PYTHONPATH=/tmp/site53:$PWD
OLD=$PWD/devtmp/old53
P=tools/results/h200-2026-11-29/session53/probe/host_layers.py
L=/tmp/L53d; rm -rf $L; mkdir -p $L
for i in 1 2; do
  timeout 100 python3 $P run new $L/host_new$i.json >> $L/host.log 2>&1; echo "new $i rc=$? at ${SECONDS}s"
  (cd /tmp && PYTHONPATH=/tmp/site53:$OLD timeout 100 python3 $OLDPWD/$P run old $L/host_old$i.json) >> $L/host.log 2>&1
  echo "old $i rc=$? at ${SECONDS}s"
done
grep -h "package\|Traceback\|Error" $L/host.log | sort | uniq -c | head -8
python3 $P compare $L/host_old*.json $L/host_new*.json
tar czf $OUT/logs.tgz -C $L .
