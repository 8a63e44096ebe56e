# Session 46 call 3 (kind nvidia-h200), empty kernel cache: the hand-off between the small-M kernels and the
# mixed-input kernels (now launched early, stream-K included) at 17..64 rows, probe/pdl_streamk.py handoff. Builds the
# extension and the 4 mixed-input kernels the probe calls (probe/pdl_streamk.py handoff_kernels).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc46c
ls $CUTLASS_GEMM_CACHE_DIR > $OUT/cache_before.txt 2>&1; echo "cache entries before: $(wc -l < $OUT/cache_before.txt)"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site46 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site46:$PWD
P=tools/results/h200-2026-11-28/session46/probe/pdl_streamk.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen46m --compile --jobs 4 \
  $(python3 $P handoff_kernels | sed 's/^/--name /') 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/mixed_kernels.log ) &
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/mixed_kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout $((580 - SECONDS)) python3 $P handoff $OUT/handoff.json > $OUT/handoff.log 2>&1; echo "probe rc=$? at ${SECONDS}s"
grep "^{" $OUT/handoff.log | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(r['bits'], r['m'], r['n'], r['k'], r['small_us'], r['mixed_us'], r['bf16_us'], r['small_per_mixed'], r['x_bf16_small'], r['x_bf16_mixed'], r['mixed_from_m'], r['max_rel_err'])"
tar czf /tmp/all46c.tgz -C $OUT . && mv /tmp/all46c.tgz $OUT/all.tgz
