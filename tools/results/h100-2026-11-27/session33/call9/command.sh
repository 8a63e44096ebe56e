# Session 33 call 9 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session33/call9/command.sh
# The final code (variants 27 / 28, mma mt2 4x2 / 2x4 with 3 stages, for 17..32 rows; variant 1 at int4 16 x 28672 x
# 4096): extension and the SM90 mixed-input set built on an empty cache side by side; the weight-only benchmark at 16 /
# 24 / 32 rows; the weight-only, mixed-input, variant and heuristics GPU tests; the tiny Llama with w4a16 / w8a16.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s33e
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* && mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site33 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site33:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/times.txt ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen33e --compile --jobs 16 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "mixed kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)" >> $OUT/times.txt
wait
cat $OUT/times.txt
SW=16x8192x8192,24x8192x8192,32x8192x8192,16x28672x4096,24x28672x4096,32x28672x4096,16x4096x14336,24x4096x14336,32x4096x14336
timeout 150 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
rm -f $OUT/bwo/weight_only.png
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py tests/test_weight_only_gpu.py \
  tests/test_wo_heuristics.py tests/test_wo_variants_gpu.py > $OUT/t_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_wo.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_wo.log | head -5
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k "w4a16 or w8a16" > $OUT/t_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_llama.log)" | tee -a $OUT/times.txt
grep -iE "relative error|FAILED|ERROR" $OUT/t_llama.log | cut -c1-120
grep -E "^\| (16|24|32)x" $OUT/bwo/weight_only.md | grep -E "bf16 F.linear|w4a16 g128 \||w8a16 \|"
