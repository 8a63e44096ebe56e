# Session 44 call 4 (kind nvidia-h200), empty kernel cache: the persistent mixed-input kernels (mixed-input generator
# 4) launched as programmatic dependents vs plainly, in alternating batches (probe/pdl_mixed.py); call 1's rows were
# timed one after the other and moved by up to 6% between neighbours.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc44d
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site44 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site44:$PWD CUTLASS_GEMM_JIT=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
python3 tools/generate_kernels.py --mixed --out /tmp/gen44m --compile --jobs 2 \
  --name sm90_mixed_bf16_int4_sym_t128x256x64_c2x1x1_cooperative_s0 --name sm90_mixed_bf16_int8_sym_t128x256x64_c2x1x1_cooperative_s0 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/mixed_kernels.log
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/mixed_kernels.log)"
timeout 120 python3 tools/results/h200-2026-11-28/session44/probe/pdl_mixed.py $OUT/mixed.json > $OUT/mixed.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep "^{" $OUT/mixed.log
