# Session 11 call 2 (2026-11-26), carry [".whl"], fresh machine, empty kernel cache: the int4 "stream" weight-only
# kernels (x rows <= 8) with the scale and zero point applied per group in fp32 (magic + u into the mma, x row sums
# by an all-ones mma, s * (part - (magic + z) * xsum) at each group end): (1) the weight-only variant sweep at
# M = 1, 4 (int4 g128, three shapes); (2) tools/benchmark.py weight_only at the decode shapes; (3) the weight-only GPU
# tests (variants + layer/op file; the 4 CUTLASS mixed-input kernels built first, JIT off).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s11_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site11 .whl/*.whl
export PYTHONPATH=/tmp/site11:$PWD
( python3 tools/generate_kernels.py --mixed --out /tmp/gen11 --compile --jobs 4 --name sm90_mixed_f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_f16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log; echo "mixed kernels at ${SECONDS}s" >> $OUT/kernels_mixed.log ) &
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s"
export CUTLASS_GEMM_JIT=0
mkdir -p $OUT/sweep $OUT/wo
timeout 150 python3 tools/bench_wo_sweep.py --out $OUT/sweep --m 1,4 --bits 4 > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/sweep/wo_sweep.md | grep -E "\*|bf16|int4pack" | head -40
timeout 150 python3 tools/benchmark.py weight_only --shapes 1x8192x8192,4x8192x8192,16x8192x8192,1x28672x4096,1x4096x14336 --out $OUT/wo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"; grep -E "^\|" $OUT/wo/weight_only.md | head -30
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/kernels_mixed.log
timeout $((580 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/gpu_tests_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/gpu_tests_wo.log; grep -E "^(FAILED|ERROR)" $OUT/gpu_tests_wo.log | head
cd $OUT && tar czf all.tgz *.log sweep wo && rm -rf sweep wo
