# Session 49 call 1 (kind nvidia-h200), EMPTY kernel cache: the int8 side. The Int8BlockLinear Python path (what
# torch.compile and CUDA graphs of a dispatch-traced model run) asks the quantizer for the activation-scale layout its
# eager C++ call asks (column-major from SFA_MN_MIN_M_S8 rows where the SM90 kernel serves). Builds the extension and
# every kernel tests/test_blockint8_sm90_gpu.py names, the int8 activation kernels of tests/test_blockint8_gpu.py at
# 200 rows and the probe's, runs the two files with JIT off, then probe/sfa_rows.py: quantizer + GEMM from CUDA
# graphs with row-major against column-major activation scales, int8 at 20..384 rows and fp8 at 20..512.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc49a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site49 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site49:$PWD
P=tools/results/h200-2026-11-29/session49/probe/sfa_rows.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_blockint8_sm90_gpu.py);
  python3 $P names;
  python3 -c "
from cutlass_gemm.kernels.blockwise import select_config
for act in ('none', 'relu', 'relu6', 'gelu_tanh', 'silu'):
    print(select_config('bf16', 200, act, 'k', 's8', 264).name)" ) | sort -u > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen49a --compile --jobs 14 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels_bw.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_blockint8_sm90_gpu test_blockint8_gpu; do
  timeout 150 $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
timeout $((590 - SECONDS)) python3 $P run $OUT/sfa_rows.json > $OUT/sfa_rows.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/sfa_rows.log | tail -n 100
tar czf /tmp/all49a.tgz -C $OUT . && mv /tmp/all49a.tgz $OUT/all.tgz
