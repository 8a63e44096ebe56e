# Session 26 call 3 (2026-11-27), carry [".whl"]: call 2's warm machine and cache (/tmp/cgc_s26b): finish the default
# SM90 set (16 at once; the built ones are found), then test_ops_gpu.py, test_nn_gpu.py, test_llama_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s26b
export PYTHONPATH=/tmp/site26:$PWD
ls $CUTLASS_GEMM_CACHE_DIR/sm90/*.so | wc -l > $OUT/cache_before.txt
timeout 300 python3 tools/results/h100-2026-11-27/session26/probe/build_set.py 16 default > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log) (cache had $(cat $OUT/cache_before.txt))"
for f in test_ops_gpu test_nn_gpu test_llama_gpu; do
  left=$((585 - SECONDS)); [ $left -lt 20 ] && { echo "$f: no time left"; continue; }
  timeout $left python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=5 tests/$f.py > $OUT/$f.log 2>&1
  echo "$f rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/$f.log)"; grep -E "^FAILED|^ERROR" $OUT/$f.log | head -8
done
cd $OUT && tar czf all.tgz --remove-files *
