# Session 49 call 3 (kind nvidia-h200), EMPTY kernel cache, no torch extension (CUTLASS_GEMM_FAST_PATH=0; operands from
# torch): probe/pad_rows.py, each kernel at M rows against the same kernel at M rounded up to its tile's M on
# zero-padded operands (is call 2's slow partial m-tile its out-of-bounds rows?).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc49c CUTLASS_GEMM_FAST_PATH=0
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site49 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site49:$PWD
P=tools/results/h200-2026-11-29/session49/probe/pad_rows.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
python3 $P names > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen49c --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout $((585 - SECONDS)) python3 $P run $OUT/pad_rows.json > $OUT/pad_rows.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/pad_rows.log | tail -n 40
tar czf /tmp/all49c.tgz -C $OUT . && mv /tmp/all49c.tgz $OUT/all.tgz
