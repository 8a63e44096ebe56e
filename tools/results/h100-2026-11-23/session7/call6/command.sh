# Session 7 call 6 (2026-11-23), carry [".whl"]: after the wo_gemm check reordering and the conv static wide-row
# quantization: the refusal probe, the wo refusal test, the conv GPU test of both act schemes vs the CPU path, and
# the conv benchmark's 3x3 rows at batch 32 (static layer column).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --conv --compile --jobs 5 $(python3 tools/conv_kernels_needed.py bench --args) --name sm90_conv2d_fprop_int8_bf16_relu_t64x128x64_c1x1x1_s0 --name sm90_conv2d_fprop_int8_bf16_t64x128x64_c1x1x1_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_conv.log
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_conv.log
export CUTLASS_GEMM_JIT=0
timeout 60 python3 tools/results/h100-2026-11-23/session7/call5/probe_refuse.py > $OUT/probe_refuse.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep "^==" $OUT/probe_refuse.log
timeout 60 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py -k refused tests/test_conv_int8_gpu.py -k "refused or matches_the_cpu_path" > $OUT/gpu_tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests.log
timeout $((400 - SECONDS)) python3 tools/benchmark.py conv --quick --out $OUT > $OUT/bench_conv.log 2>&1
echo "conv bench rc=$? at ${SECONDS}s"; tail -n 8 $OUT/bench_conv.log
