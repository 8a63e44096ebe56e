# Session 52 call 4 (kind nvidia-h200): call 3's probe again, the old arm importing 5e535b8's package before
# tools/bench_common.py puts the repository root on sys.path (in call 3 both arms ran the new package: its JSON
# records the package path). Warm machine: call 3's cache (both extensions, the kernels) when still there, else built.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc52c
[ -d /tmp/site52 ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site52 .whl/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site52:$PWD
OLD=$PWD/devtmp/old52
P=$PWD/tools/results/h200-2026-11-29/session52/probe/host_layer.py
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1 ) &
( cd /tmp && PYTHONPATH=/tmp/site52:$OLD python3 -c "import cutlass_gemm; assert 'old52' in cutlass_gemm.__file__; \
  from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext_old.log 2>&1 ) &
python3 tools/generate_kernels.py --out /tmp/gen52d --compile --jobs 14 \
  $(printf -- "--name %s " $(python3 $P names)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
old() { (cd /tmp && PYTHONPATH=/tmp/site52:$OLD timeout 80 python3 -c "import sys; sys.argv = ['$P', 'run', 'old', '$1']; \
  import cutlass_gemm; assert 'old52' in cutlass_gemm.__file__; sys.path.insert(0, '$(dirname $P)'); __file__ = '$P'; exec(open('$P').read())"); }
for i in 1 2; do
  old $OUT/host_old$i.json >> $OUT/host.log 2>&1; echo "old $i rc=$? at ${SECONDS}s"
  timeout 80 python3 $P run new $OUT/host_new$i.json >> $OUT/host.log 2>&1; echo "new $i rc=$? at ${SECONDS}s"
done
grep -h "package\|Traceback\|Error" $OUT/host.log | sort | uniq -c | head -8
python3 $P compare $OUT/host_old*.json $OUT/host_new*.json
