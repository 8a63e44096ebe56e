# Session 10 call 6 (2026-11-24), carry [".whl"], fresh machine, empty kernel cache: the wall-clock question of call 5
# (Int8Linear dynamic 16x8192x8192: 67.9 us device / 50.6 us wall there, 29.9 / 39.2 in call 3): session 5's probe
# (rows interleaved and repeated, host time per call, Python-path count), then the layer benchmark at that shape.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s10_$$
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site10 .whl/*.whl
export PYTHONPATH=/tmp/site10:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --out /tmp/gen10 --compile --jobs 4 --name sm90_int8_bf16_scaled_azp_per_token_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_e4m3_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 --name sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 > $OUT/kernels_gemm.log 2>&1
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_gemm.log
export CUTLASS_GEMM_JIT=0
timeout 150 python3 tools/results/h100-2026-11-23/session5/call5/probe.py > $OUT/probe.log 2>&1; echo "probe rc=$? at ${SECONDS}s"; cat $OUT/probe.log | tail -12
mkdir -p $OUT/bl
timeout $((585 - SECONDS)) python3 tools/benchmark.py layer --shapes 16x8192x8192 --out $OUT/bl > $OUT/bench_layer.log 2>&1
echo "bench layer rc=$? at ${SECONDS}s"; grep "^|" $OUT/bench_layer.log | head -12
cd $OUT && tar czf all.tgz *.log bl && rm -rf bl
