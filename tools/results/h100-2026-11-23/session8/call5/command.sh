# Session 8 call 5 (2026-11-23), carry [".whl", "devtmp/qt8"]: (1) the row quant kernels at M >= 2048 under each
# residency cap and the per-group kernel as one capped CTA per row (`qt8 rows`, harness session8/qt/qt8.cu built on the
# CPU machine with nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90); (2) the weight-only eager direct path:
# host cost side by side (wo_host.py), the weight-only GPU tests, the weight_only rows with their eager wall column,
# the batch-1 1x1 conv rows.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
R=tools/results/h100-2026-11-23/session8/call5
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen --compile --jobs 4 --name sm90_mixed_f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_f16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_bf16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen --compile --jobs 1 --name sm90_int8_bf16_scaled_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
./devtmp/qt8/qt8 rows > $OUT/qt8_rows.log 2>&1; echo "qt8 rows rc=$? at ${SECONDS}s"; grep -E "CHECKS|MISMATCH" $OUT/qt8_rows.log | head -5
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_*.log
export CUTLASS_GEMM_JIT=0
# wo_host.py as it ran here: `git show 28e7b65:tools/results/h100-2026-11-23/session8/call5/wo_host.py` (call6/wo_host.py adds one row)
timeout 60 python3 $R/wo_host.py $OUT > $OUT/wo_host.log 2>&1; echo "wo host rc=$? at ${SECONDS}s"; cat $OUT/wo_host.log | tail -8
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/gpu_tests_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/gpu_tests_wo.log
mkdir -p $OUT/wo $OUT/convwo
timeout 150 python3 tools/benchmark.py weight_only --shapes 1x8192x8192,16x8192x8192,1x28672x4096,1x4096x14336,49x512x2048 --out $OUT/wo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
timeout $((560 - SECONDS)) python3 tools/benchmark.py conv --weight-only --out $OUT/convwo > $OUT/bench_conv_wo.log 2>&1
echo "conv wo bench rc=$? at ${SECONDS}s"; grep -E "geometric" $OUT/bench_conv_wo.log
cd $OUT && tar czf /tmp/all.tgz . && mv /tmp/all.tgz $OUT/all.tgz && find . -type f ! -name all.tgz -delete
