# Session 54 call 3 (kind nvidia-h200), EMPTY kernel cache (a fresh machine), carry [".whl"]: the final code. The
# extension and 21 kernels (kernels.txt: the 12 test_ops_gpu's C++ fast-path test takes, the 11 of test_nn_gpu, the 2
# mixed-input kernels of the batch-32 ResNet-50 1x1 layers; 4 shared) built side by side, then side by side:
#   tests/test_conv_wo_gpu.py (the final routing: wo_heuristics CONV_RULES and CONV_IGEMM_MAX_MNK);
#   tests/test_ops_gpu.py -k cpp_fast_path, tests/test_nn_gpu.py, tests/test_quant_ops_gpu.py -k "per_group or
#   leading_dims or opcheck" (the code of 6af7dd4, not run on a GPU in session 53: fast_path.cpp / w8a8_fast.cpp
#   allocate through empty_dev, quant_groups without zero_pad);
# then `tools/benchmark.py conv --weight-only --kxk --resnet` on the final routing.
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session54/call3
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc54c
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site54 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site54:$PWD
L=/tmp/L54c; rm -rf $L; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen54c --compile --jobs 10 \
  $(printf -- "--name %s " $(cat $D/kernels.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
R=$((440 - SECONDS))
t() { local name=$1; shift; (timeout $R $T "$@" > $L/$name.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/$name.log) & }
t conv_wo tests/test_conv_wo_gpu.py
t ops_fast tests/test_ops_gpu.py -k cpp_fast_path
t nn tests/test_nn_gpu.py
t quant_ops tests/test_quant_ops_gpu.py -k "per_group or leading_dims or opcheck"
wait
for f in conv_wo ops_fast nn quant_ops; do echo "$f: $(grep -E '[0-9]+ (passed|failed|error)' $L/$f.log | tail -n 1) $(tail -n 1 $L/$f.log)"; done
grep -h "rel. error" $L/conv_wo.log | cut -c1-220
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
R=$((590 - SECONDS))
timeout $R python3 tools/benchmark.py conv --weight-only --kxk --resnet --out $OUT/bench > $L/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
(cd $CUTLASS_GEMM_CACHE_DIR && ls sm*/*.so 2>/dev/null | sed 's/-[0-9a-f]*\.so$//' | sort -u) > $L/kernels_in_cache.txt
echo "kernels in the cache: $(wc -l < $L/kernels_in_cache.txt)"
tail -n 45 $L/bench.log | cut -c1-330
tar czf $OUT/logs.tgz -C $L .
