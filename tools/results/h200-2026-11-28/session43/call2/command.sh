# Session 43 call 2 (kind nvidia-h200), EMPTY kernel cache, the session's code (conv generator 4: the chain's NaN
# guard in the epilogue). Extension + the 42 conv kernels + the 4 GEMM kernels ResNet-50's unchained schemes use +
# probe/guard.py's 5 narrow tiles, built from nothing; probe/guard.py (the guard's cost, narrow tiles);
# `benchmark.py conv --quick --resnet` (3x3 rows and the whole ResNet-50 at batch 32).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc43b
rm -rf $CUTLASS_GEMM_CACHE_DIR
S=tools/results/h200-2026-11-28/session43
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site43 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site43:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen43g --compile --jobs 4 \
  --name sm90_int8_f16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 \
  --name sm90_int8_f16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/gemm_kernels.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen43b --compile --jobs 12 $(python3 tools/conv_kernels_needed.py all --args) \
  $(python3 $S/probe/guard.py --names) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log) / $(tail -n 1 $OUT/gemm_kernels.log)"
timeout 150 python3 $S/probe/guard.py $OUT/guard > $OUT/guard.log 2>&1
echo "guard rc=$? at ${SECONDS}s"; grep -A12 "^### l1" $OUT/guard/guard.md
L=$((580 - SECONDS)); timeout $L python3 tools/benchmark.py conv --quick --resnet --out $OUT/cq > $OUT/bench_cq.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep -A10 "int8 chain (GPU" $OUT/cq/conv.md; grep "geometric" $OUT/cq/conv.md | grep "chain" | sort -u
grep -A7 "^ResNet-50" $OUT/cq/conv.md
echo "done at ${SECONDS}s"
tar czf /tmp/all43b.tgz -C $OUT . && mv /tmp/all43b.tgz $OUT/all.tgz
