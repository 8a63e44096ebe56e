# Session 19 call 11 (2026-11-27), carry [".whl"]: the final code (6 direct variants, wo_heuristics.TABLE from call 10) on
# an EMPTY cache: the extension, `benchmark.py weight_only` at M <= 16 (the layer as a model calls it, against bf16
# F.linear and torch._weight_int4pack_mm), the weight-only GPU tests and the tiny Llama under w4a16 / w8a16.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19i
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site19 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site19:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
SH=1x8192x8192,4x8192x8192,8x8192x8192,16x8192x8192,1x28672x4096,4x28672x4096,16x28672x4096,1x4096x14336,4x4096x14336,16x4096x14336
timeout 200 python3 tools/benchmark.py weight_only --shapes $SH --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "WeightOnlyLinear|bf16|int4pack" $OUT/bwo/*.md | head -50
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_wo.log)"
timeout $((580 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k "w4a16 or w8a16 or float_model" > $OUT/test_llama_gpu.log 2>&1
echo "llama rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_llama_gpu.log)"
