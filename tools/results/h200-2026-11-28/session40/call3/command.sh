# Session 40 call 3 (kind nvidia-h200), EMPTY cache: does the row-block change (grid z in wo_gemm.cuh, the plan's row
# blocks) cost the decode shapes anything? Two extensions built side by side: "old" = a copy of this tree with the four
# weight-only sources of commit 768664e (carried in devtmp/old_csrc), "new" = this tree; then `benchmark.py weight_only`
# on five decode shapes (wide layers: the routing is the same), old / new / old / new in separate processes.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site40 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
mkdir -p /tmp/oldrepo && tar cf - --exclude=.whl --exclude=devtmp --exclude=tools/results . | tar xf - -C /tmp/oldrepo
cp devtmp/old_csrc/* /tmp/oldrepo/cutlass_gemm/runtime/csrc/
NEW=$PWD
for v in old new; do
  d=$NEW; [ $v = old ] && d=/tmp/oldrepo
  ( cd $d && CUTLASS_GEMM_CACHE_DIR=/tmp/cg_$v PYTHONPATH=/tmp/site40:$d python3 -c \
      "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext_$v.log 2>&1; \
    echo "extension $v rc=$? at ${SECONDS}s" >> $OUT/ext_$v.log ) &
done
wait
tail -n 1 $OUT/ext_old.log $OUT/ext_new.log
SH=1x8192x8192,16x8192x8192,16x28672x4096,1x4096x14336,16x4096x14336
for r in 1 2; do
  for v in old new; do
    d=$NEW; [ $v = old ] && d=/tmp/oldrepo
    ( cd $d && CUTLASS_GEMM_CACHE_DIR=/tmp/cg_$v PYTHONPATH=/tmp/site40:$d timeout 100 python3 tools/benchmark.py weight_only \
        --shapes $SH --out $OUT/wo_${v}_$r > $OUT/wo_${v}_$r.log 2>&1; echo "$v run $r rc=$? at ${SECONDS}s" )
  done
done
tar czf /tmp/all40.tgz -C $OUT . && mv /tmp/all40.tgz $OUT/all.tgz
