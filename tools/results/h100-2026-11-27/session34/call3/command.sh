# Session 34 call 3 (2026-11-28), carry [".whl"], right after call 2 on the same warm machine (its kernel cache
# /tmp/cgc_s34b; rebuilt here if the machine was not kept): the weight-only benchmark at 48 / 64 / 128 / 256 rows of
# the three shapes (mixed rows: the new selection), the weight-only small-M and layer GPU tests and the tiny Llama.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s34b
unset CUTLASS_GEMM_PDL
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site34 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site34:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
ls $CUTLASS_GEMM_CACHE_DIR/sm90 2>/dev/null | grep -c "\.so$" > $OUT/cached_kernels.txt
echo "cached kernels: $(cat $OUT/cached_kernels.txt)"
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
SW=48x8192x8192,64x8192x8192,128x8192x8192,256x8192x8192,48x28672x4096,64x28672x4096,128x28672x4096,256x28672x4096
SW=$SW,48x4096x14336,64x4096x14336,128x4096x14336,256x4096x14336
timeout 300 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
rm -f $OUT/bwo/weight_only.png
grep -E "cutlass_mixed|bf16 F.linear" $OUT/bwo/weight_only.csv | cut -d, -f3-10
timeout 150 python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k "w4a16 or w8a16" > $OUT/t_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_llama.log)" | tee -a $OUT/times.txt
grep -iE "relative error|^FAILED|^ERROR" $OUT/t_llama.log | cut -c1-120 | head
timeout $((590 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_gpu.py tests/test_wo_variants_gpu.py \
  > $OUT/t_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_wo.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_wo.log | head -5
