# Session 8 call 1 (2026-11-23), carry [".whl", "devtmp/qt8"]: (1) the per-tensor quant kernel's cp.async shared-memory
# stage, DSMEM cluster exchange and small-tensor cluster sizes (harness session8/qt/qt8.cu, built on the CPU machine:
# nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90), and the quant GPU tests against the torch reference;
# (2) a debugger backtrace of the wo_gemm refusal crash; (3) batch-1 1x1 convs, WeightOnlyConv2d vs cuDNN fp16.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
R=tools/results/h100-2026-11-23/session8/call1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
( python3 tools/generate_kernels.py --mixed --out /tmp/gen --compile --jobs 2 --name sm90_mixed_f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_f16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log; echo "mixed at ${SECONDS}s" >> $OUT/kernels_mixed.log ) &
./devtmp/qt8/qt8 > $OUT/qt8.log 2>&1; echo "qt8 rc=$? at ${SECONDS}s"; grep -E "CHECKS|MISMATCH" $OUT/qt8.log | head
wait; echo "builds at ${SECONDS}s"; tail -qn 2 $OUT/extension.log $OUT/kernels_mixed.log
export CUTLASS_GEMM_JIT=0
( which gdb cuda-gdb; G=$(which gdb || which cuda-gdb || echo /usr/local/cuda/bin/cuda-gdb); echo "debugger: $G";
  timeout 120 $G -batch -ex run -ex bt -ex "info registers rip" --args python3 $R/wo_refuse_crash.py ) > $OUT/wo_refuse_gdb.log 2>&1
echo "gdb rc=$? at ${SECONDS}s"; grep -E "^#[0-9]+ " $OUT/wo_refuse_gdb.log | head -12
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py -k "bit_exact or poisons or rms_norm or leading or opcheck or other_stream" > $OUT/gpu_tests_quant.log 2>&1
echo "quant tests rc=$? at ${SECONDS}s"; tail -n 3 $OUT/gpu_tests_quant.log
mkdir -p $OUT/convwo
timeout $((575 - SECONDS)) python3 tools/benchmark.py conv --weight-only --out $OUT/convwo > $OUT/bench_conv_wo.log 2>&1
echo "conv wo bench rc=$? at ${SECONDS}s"; tail -n 20 $OUT/bench_conv_wo.log
