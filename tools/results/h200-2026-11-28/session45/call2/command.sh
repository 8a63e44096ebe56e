# Session 45 call 2 (kind nvidia-h200), call 1's kernel cache where the machine stayed warm (else empty; every kernel
# is built below): the extension rebuilt with the per-tensor quantizer's kernels triggering their dependents first
# (quant_tensor.cuh). Builds: the extension, all 42 conv kernels, call 1's GEMM / mixed kernels (skipped when cached).
# probe/pdl_tensor.py chains, `benchmark.py shapes` at two shapes (the new per-tensor fp8 column), then the conv and
# mixed-input GPU tests session 44 left unrun after its last changes, the extension's PDL / quant tests and the
# per-tensor layer chains of tests/test_pdl_gemm_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc45
ls $CUTLASS_GEMM_CACHE_DIR > $OUT/cache_before.txt 2>&1; echo "cache entries before: $(wc -l < $OUT/cache_before.txt)"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site45 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site45:$PWD
P=tools/results/h200-2026-11-28/session45/probe/pdl_tensor.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen45m --compile --jobs 3 \
  --name sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0_streamk \
  --name sm90_mixed_bf16_int4_sym_t128x256x64_c2x1x1_cooperative_s0 --name sm90_mixed_bf16_int8_sym_t128x256x64_c2x1x1_cooperative_s0 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/mixed_kernels.log ) &
N=$(grep -o 'e4m3_bf16_scaled[a-z_]*_t[0-9x]*_c[0-9x]*_[a-z]*\|int8_bf16_scaled[a-z_]*_t[0-9x]*_c[0-9x]*_[a-z]*' \
    tools/results/h200-2026-11-28/session45/call1/command.sh | sed 's/^/--name sm90_/; s/$/_s0_a16x16x8/' | tr '\n' ' ')
( python3 tools/generate_kernels.py --out /tmp/gen45g --compile --jobs 4 $N 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/gemm_kernels.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen45c --compile --jobs 10 $(python3 tools/conv_kernels_needed.py all --args) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/conv_kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/conv_kernels.log) / $(tail -n 1 $OUT/gemm_kernels.log) / $(tail -n 1 $OUT/mixed_kernels.log)"
timeout 60 python3 $P chains $OUT/chains.json > $OUT/chains.log 2>&1; echo "chains rc=$? at ${SECONDS}s"
grep "^{" $OUT/chains.log | python3 -c "
import json,sys
for l in sys.stdin:
    r=json.loads(l); print(r['width'], r['m'], r['scheme'], r['pdl_us_per_layer'], r['plain_us_per_layer'], r['bf16_us_per_layer'], r['plain_per_pdl'], r['x_bf16_pdl'], r['graph_equals_eager'])"
CUTLASS_GEMM_JIT=0 timeout 90 python3 tools/benchmark.py shapes --shapes 128x8192x8192,2048x8192x8192,512x4096x14336 --out $OUT/shapes > $OUT/bench_shapes.log 2>&1
echo "bench shapes rc=$? at ${SECONDS}s"; grep "^|" $OUT/shapes/shapes.md | cut -d'|' -f2,8,9,10
L=$((570 - SECONDS)); T="timeout $L python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_pdl_conv_mixed_gpu.py > $OUT/tests_pdl_conv_mixed.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl_conv_mixed.log
  $T tests/test_pdl_gpu.py tests/test_quant_ops_gpu.py > $OUT/tests_ext.log 2>&1; echo "rc=$?" >> $OUT/tests_ext.log
  $T tests/test_pdl_gemm_gpu.py -k chain > $OUT/tests_pdl_gemm_chain.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl_gemm_chain.log ) &
( $T tests/test_conv_int8_gpu.py > $OUT/tests_int8conv.log 2>&1; echo "rc=$?" >> $OUT/tests_int8conv.log ) &
wait
for f in tests_pdl_conv_mixed tests_ext tests_pdl_gemm_chain tests_int8conv; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
grep -h "FAILED\|Error" $OUT/tests_*.log | head -10
echo "done at ${SECONDS}s"
tar czf /tmp/all45b.tgz -C $OUT . && mv /tmp/all45b.tgz $OUT/all.tgz
