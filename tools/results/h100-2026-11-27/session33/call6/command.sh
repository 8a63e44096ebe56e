# Session 33 call 6 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session33/call6/command.sh
# The final code: extension and the SM90 mixed-input set built on an empty cache side by side; the tiny Llama with the
# weight-only schemes (its prefill and logits rows go through the new 17..32-row routing), the weight-only variant
# tests, and the weight-only benchmark at the decode and hand-off rows.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s33d
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* && mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site33 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site33:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/times.txt ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen33d --compile --jobs 16 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "mixed kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)" >> $OUT/times.txt
wait
cat $OUT/times.txt
timeout 150 python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k "w4a16 or w8a16" > $OUT/t_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_llama.log)" | tee -a $OUT/times.txt
grep -iE "relative error|FAILED|ERROR" $OUT/t_llama.log | cut -c1-200
SW=1x8192x8192,16x8192x8192,32x8192x8192,16x28672x4096,32x28672x4096,16x4096x14336,32x4096x14336
timeout 120 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_wo_variants_gpu.py > $OUT/t_variants.log 2>&1
echo "variant tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_variants.log)" | tee -a $OUT/times.txt
grep -E "^\| (1|16|32)x" $OUT/bwo/weight_only.md | grep -E "bf16 F.linear|w4a16 g128 \||w8a16 \|"
