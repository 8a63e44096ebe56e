# Session 46 call 1 (kind nvidia-h200), empty kernel cache: stream-K / split-K kernels launched as programmatic
# dependents (GEMM generator 6, mixed generator 5: the workspace cleared by a fill kernel that is itself a programmatic
# dependent, kernels/emit_streamk.py). Builds the extension, the 7 mixed-input kernels below (6 stream-K) and the 11
# stream-K / split-K GEMM kernels of tests/test_streamk_gpu.py, all from empty; then probe/pdl_streamk.py mixed, and
# the GPU tests of these kernels (float64, back-to-back calls with early launches, chains on vs off, graphs).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc46
ls $CUTLASS_GEMM_CACHE_DIR > $OUT/cache_before.txt 2>&1; echo "cache entries before: $(wc -l < $OUT/cache_before.txt)"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site46 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site46:$PWD
D=tools/results/h200-2026-11-28/session46
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
MIXED="sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0_streamk sm90_mixed_bf16_int4_sym_t128x256x64_c2x1x1_cooperative_s0 sm90_mixed_bf16_int4_sym_t128x64x64_c1x1x1_cooperative_s0_streamk sm90_mixed_bf16_int4_sym_t256x128x64_c1x1x1_cooperative_s0_streamk sm90_mixed_bf16_int4_sym_t256x64x128_c1x1x1_cooperative_s0_streamk sm90_mixed_bf16_int8_sym_t128x128x128_c1x1x1_cooperative_s0_streamk sm90_mixed_bf16_int8_sym_t128x64x128_c1x1x1_cooperative_s0_streamk"
( python3 tools/generate_kernels.py --mixed --out /tmp/gen46m --compile --jobs 7 $(printf -- "--name %s " $MIXED) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/mixed_kernels.log ) &
G=$(cd tests && python3 -c "import test_streamk_gpu as t; print(' '.join('--name ' + c.name for c in t.KERNELS))")
( python3 tools/generate_kernels.py --out /tmp/gen46g --compile --jobs 7 $G 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" \
  > $OUT/gemm_kernels.log ) &
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/gemm_kernels.log) / $(tail -n 1 $OUT/mixed_kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout 170 python3 $D/probe/pdl_streamk.py mixed $OUT/mixed.json > $OUT/mixed.log 2>&1; echo "probe rc=$? at ${SECONDS}s"
grep "^{" $OUT/mixed.log | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(r['m'], r['n'], r['k'], r['bits'], r['kernel'][10:], r['pdl_us'], r['plain_us'], r['bf16_us'], r['plain_per_pdl'], r['x_bf16_pdl'], r['x_bf16_plain'], r['graph_equals_eager'])"
L=$((585 - SECONDS)); T="timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
SEL="every_selectable and ($(echo $MIXED | sed 's/ / or /g'))"
( $T tests/test_streamk_gpu.py > $OUT/tests_streamk.log 2>&1; echo "rc=$?" >> $OUT/tests_streamk.log
  $T tests/test_weight_only_mixed_gpu.py -k "$SEL" > $OUT/tests_mixed64.log 2>&1; echo "rc=$?" >> $OUT/tests_mixed64.log ) &
( $T tests/test_pdl_conv_mixed_gpu.py -k mixed > $OUT/tests_pdl_mixed.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl_mixed.log ) &
wait
for f in tests_streamk tests_mixed64 tests_pdl_mixed; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
grep -h "FAILED\|Error" $OUT/tests_*.log | head -10
echo "done at ${SECONDS}s"
tar czf /tmp/all46a.tgz -C $OUT . && mv /tmp/all46a.tgz $OUT/all.tgz
