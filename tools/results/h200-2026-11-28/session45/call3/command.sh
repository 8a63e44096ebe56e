# Session 45 call 3 (kind nvidia-h200), right after call 2 on the same warm machine and its kernel cache (call 2 built
# every kernel on an empty cache; its test runs were cut by the call's limit before their logs were packed): the tests
# only, three at once.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc45 PYTHONPATH=/tmp/site45:$PWD
echo "cache entries: $(ls $CUTLASS_GEMM_CACHE_DIR | wc -l)"
T="timeout 420 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_pdl_conv_mixed_gpu.py tests/test_pdl_gemm_gpu.py -k "conv or mixed or chain" > $OUT/tests_pdl.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $OUT/tests_pdl.log ) &
( $T tests/test_pdl_gpu.py tests/test_quant_ops_gpu.py > $OUT/tests_ext.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $OUT/tests_ext.log ) &
( $T tests/test_conv_int8_gpu.py > $OUT/tests_int8conv.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $OUT/tests_int8conv.log ) &
wait
for f in tests_pdl tests_ext tests_int8conv; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
grep -h "FAILED\|Error" $OUT/tests_*.log | head -10
echo "done at ${SECONDS}s"
