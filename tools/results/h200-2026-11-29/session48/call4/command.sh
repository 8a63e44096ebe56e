# Session 48 call 4 (kind nvidia-h200), EMPTY kernel cache, the final code (call 3 + the op copies a row-major int8
# scale_a below 512 rows only where the 256-row tile serves: kernels/blockwise.relayout_sfa(..., n)): blockwise generator 10 (the promotion
# mainloops as two loops and two policies), SELECTION_S8's per-atom tile from 129 rows where it makes more than 66
# tiles, and the int8 family's column-major scale_a from 129 rows (SFA_MN_MIN_M_S8). Builds the extension and every
# kernel tests/test_blockint8_sm90_gpu.py and tests/test_pdl_blockwise_gpu.py name (plus the int8 activation kernels
# of tests/test_blockint8_gpu.py at 200 rows and the probe's), runs the three files with JIT off, then
# probe/mid_rule.py: the op and the eager layer under the old and the new rule in alternating batches.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc48d
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site48 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site48:$PWD
P=tools/results/h200-2026-11-29/session48/probe/mid_rule.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_blockint8_sm90_gpu.py && python3 test_pdl_blockwise_gpu.py);
  python3 $P names;
  python3 -c "
from cutlass_gemm.kernels.blockwise import select_config
for act in ('none', 'relu', 'relu6', 'gelu_tanh', 'silu'):
    print(select_config('bf16', 200, act, 'k', 's8', 264).name)" ) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --blockwise --out /tmp/gen48f --compile --jobs 14 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) blockwise): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels_bw.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_blockint8_sm90_gpu test_pdl_blockwise_gpu test_blockint8_gpu; do
  timeout 150 $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
timeout $((590 - SECONDS)) python3 $P $OUT/mid_rule.json > $OUT/mid_rule.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/mid_rule.log | tail -n 12
tar czf /tmp/all48d.tgz -C $OUT . && mv /tmp/all48d.tgz $OUT/all.tgz
