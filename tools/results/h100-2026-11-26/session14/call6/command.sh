# Session 14 call 6 (2026-11-26), carry [".whl", "devtmp/cache_s14"]: what else rides on the weight-only layer's
# new routing (mixed-input kernels from M = 17, the C++ entry): the tiny Llama under every scheme (w4a16 / w8a16
# prefill now on the stream-K mixed kernels, CUDA-graph generation), the weight-only conv tests (1x1 convs are a
# WeightOnlyLinear over pixel rows), and benchmark.py conv --weight-only (batch-1 ResNet-50 1x1 convs vs cuDNN fp16;
# session 8 measured them with the M > 64 mixed path host-bound in eager).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14f
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s14/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen14 --compile --jobs 8 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen90 --compile --jobs 14 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_default.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log) / $(tail -n 1 $OUT/kernels_default.log)"
wait; tail -n 1 $OUT/extension.log
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py > $OUT/test_llama_gpu.log 2>&1
echo "llama rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_llama_gpu.log)"
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_conv_gpu.py -k "weight_only" > $OUT/test_conv_wo.log 2>&1
echo "conv wo tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_conv_wo.log)"
timeout $((580 - SECONDS)) python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_conv_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "geometric" $OUT/cwo/*.md
tar czf /tmp/all6.tgz -C $OUT . && mv /tmp/all6.tgz $OUT/all.tgz
