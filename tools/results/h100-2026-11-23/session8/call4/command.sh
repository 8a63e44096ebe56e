# Session 8 call 4 (2026-11-23), carry [".whl"]: the weight-only split-K cap (partials up to 8 MB in all): the
# weight-only GPU tests, the batch-1 1x1 conv rows again, and the weight_only layer rows at the tuned decode shapes
# (must not move) and at narrow ones (N = 512 / 2048, what the cap changes).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen --compile --jobs 4 --name sm90_mixed_f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_f16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log ) &
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_mixed.log
export CUTLASS_GEMM_JIT=0
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/gpu_tests_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_wo.log
mkdir -p $OUT/wo $OUT/convwo
timeout 120 python3 tools/benchmark.py weight_only --shapes 1x8192x8192,16x8192x8192,64x8192x8192,1x28672x4096,1x4096x14336,1x512x2048,16x512x2048,49x512x2048,49x2048x512,1x2048x8192,16x2048x8192 --out $OUT/wo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
timeout $((570 - SECONDS)) python3 tools/benchmark.py conv --weight-only --out $OUT/convwo > $OUT/bench_conv_wo.log 2>&1
echo "conv wo bench rc=$? at ${SECONDS}s"; grep -E "^\||geometric" $OUT/bench_conv_wo.log | head -20
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
