# Session 10 call 7 (2026-11-24), carry [".whl"], fresh machine, empty kernel cache: tools/benchmark.py decode with
# CUDA-graph replay rows beside the eager ones (the GEMV's time over its floor is ~5 us at every size in call 5: a
# fixed cost, not a bandwidth shortfall; a graph removes the launch gaps a graph-captured decode step never has).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s10_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site10 .whl/*.whl 2>/dev/null
export PYTHONPATH=/tmp/site10:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --out /tmp/gen10 --compile --jobs 4 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 > $OUT/kernels_gemm.log 2>&1
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
mkdir -p $OUT/bd
timeout $((585 - SECONDS)) python3 tools/benchmark.py decode --out $OUT/bd > $OUT/bench_decode.log 2>&1
echo "bench decode rc=$? at ${SECONDS}s"; grep "^|" $OUT/bench_decode.log | head -60
cd $OUT && tar czf all.tgz *.log bd && rm -rf bd
