# Session 56 call 3 (2026-11-29), carry [".whl"], fresh machine, EMPTY kernel cache: the GPU code of session 55's
# last code change (WeightOnlyConv2d's 1x1 layers on the (N, H, W, Ci) view), whose tests/test_conv_gpu.py run hit its
# timeout at 52 passed while it built int8 GEMMs on first use (session55/call5). The extension beside the 10 kernels
# of session55/call3/kernels.txt (built from the list by the new `generate_kernels.py --list`), then
# tests/test_conv_wo_gpu.py and tests/test_conv_gpu.py side by side, each recording the kernels it loads
# (CUTLASS_GEMM_RECORD_KERNELS, merged into one list under a lock).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc56c
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/site56
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site56 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site56:$PWD
L=$OUT/logs; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen56c --compile --jobs 12 \
  --list tools/results/h200-2026-11-29/session55/call3/kernels.txt 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 1 $L/kernels.log)"
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
export CUTLASS_GEMM_RECORD_KERNELS=$OUT/conv_tests_kernels.txt
(timeout 300 $T tests/test_conv_wo_gpu.py > $L/conv_wo.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv_wo.log) &
(timeout 300 $T tests/test_conv_gpu.py > $L/conv.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv.log) &
wait
for f in conv_wo conv; do echo "$f: $(grep -E '[0-9]+ (passed|failed|error)' $L/$f.log | tail -n 1) $(tail -n 1 $L/$f.log)"; done
grep -h "^FAILED\|^ERROR\|first use" $L/*.log | head -20
grep -vc "^#" $OUT/conv_tests_kernels.txt
