# Session 53 call 3 (kind nvidia-h200), carry [".whl", "devtmp/old53"]; on call 2's machine if still warm (its kernel
# cache /tmp/cgc53b, the new extension in it), else from an empty cache. devtmp/old53 is 4b1c414's package (session 52's
# final), its extension built from /tmp so that `import cutlass_gemm` takes it. First, beside that build: the
# remaining GPU tests of the changed entries, JIT on (test_wo_variants_gpu.py: wo_gemm over every variant;
# test_weight_only_mixed_gpu.py -k fast_path: mixed_linear_fast; test_conv_int8_gpu.py -k eager_cpp_entry: conv_fast).
# Then, alone on the machine, probe/host_layers.py new, old, new, old, and its comparison.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc53b
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site53 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site53:$PWD
OLD=$PWD/devtmp/old53
P=tools/results/h200-2026-11-29/session53/probe/host_layers.py
L=/tmp/L53c; rm -rf $L; mkdir -p $L
echo "cache at start: $(ls $CUTLASS_GEMM_CACHE_DIR/sm90/*.so 2>/dev/null | wc -l) kernels"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
( cd /tmp && PYTHONPATH=/tmp/site53:$OLD python3 -c "import cutlass_gemm; assert 'old53' in cutlass_gemm.__file__; \
  from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext_old.log 2>&1; \
  echo "old extension rc=$? at ${SECONDS}s" >> $L/ext_old.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen53c --compile --jobs 4 \
  $(printf -- "--name %s " $(python3 $P names)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log ) &
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
t() { local name=$1 shard=$2; shift 2; (CUTLASS_GEMM_TEST_SHARD=$shard timeout 330 $T "$@" > $L/$name.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/$name.log) & }
for i in 0 1 2; do t wo_variants.$i $i/3 tests/test_wo_variants_gpu.py; done
t mixed_fast "" tests/test_weight_only_mixed_gpu.py -k fast_path
t conv_entry "" tests/test_conv_int8_gpu.py -k eager_cpp_entry
wait
echo "builds and tests done at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/ext_old.log) / $(tail -n 1 $L/kernels.log)"
for f in $L/wo_variants.*.log $L/mixed_fast.log $L/conv_entry.log; do
  echo "$(basename $f): $(grep -E '[0-9]+ (passed|failed|error)' $f | tail -n 1) $(tail -n 1 $f)"; done
grep -h "^FAILED\|^ERROR" $L/*.log | head -10
export CUTLASS_GEMM_JIT=0
for i in 1 2; do
  [ $SECONDS -lt 470 ] || break
  timeout 60 python3 $P run new $L/host_new$i.json >> $L/host.log 2>&1; echo "new $i rc=$? at ${SECONDS}s"
  (cd /tmp && PYTHONPATH=/tmp/site53:$OLD timeout 60 python3 $OLDPWD/$P run old $L/host_old$i.json) >> $L/host.log 2>&1
  echo "old $i rc=$? at ${SECONDS}s"
done
grep -h "package\|Traceback\|Error" $L/host.log | sort | uniq -c | head -8
python3 $P compare $L/host_old*.json $L/host_new*.json
tar czf $OUT/logs.tgz -C $L .
