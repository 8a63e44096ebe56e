# Session 40 call 4 (kind nvidia-h200), EMPTY kernel cache, commit df45130 (the session's code): the extension, then
# `benchmark.py conv --weight-only` and the weight-only GPU tests a new user of the row blocks meets.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc40d
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site40 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site40:$PWD
git log --oneline -1 > $OUT/commit.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 80 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_conv_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "geometric" $OUT/cwo/*.md
T="timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1; echo "rc=$?" >> $OUT/tests_wo.log ) &
( $T tests/test_wo_variants_gpu.py -k "row_blocks or refused or list_matches" > $OUT/tests_var.log 2>&1; echo "rc=$?" >> $OUT/tests_var.log; \
  $T tests/test_conv_gpu.py -k weight_only > $OUT/tests_conv.log 2>&1; echo "rc=$?" >> $OUT/tests_conv.log ) &
wait
for f in tests_wo tests_var tests_conv; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
echo "done at ${SECONDS}s"
tar czf /tmp/all40.tgz -C $OUT . && mv /tmp/all40.tgz $OUT/all.tgz
