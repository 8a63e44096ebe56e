# Session 35 call 3 (2026-11-28), carry [".whl"], from the repository root, on an EMPTY kernel cache:
#   bash tools/results/h100-2026-11-28/session35/call3/command.sh
# The final code: variant 32 to 48 rows (variant 34 at 4096^2 to 64) and the per-shape hand-off (wo_heuristics.MIXED_FROM).
# The weight-only benchmark at the shapes whose rows changed (the layer as from_float builds it on SM90 beside bf16
# F.linear and torch._weight_int4pack_mm); the new hand-off GPU test (it builds its two mixed kernels); the variant test
# file (every variant, float64); the tiny Llama w4a16 / w8a16 if time is left.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s35c
rm -rf $CUTLASS_GEMM_CACHE_DIR && mkdir -p $CUTLASS_GEMM_CACHE_DIR
unset CUTLASS_GEMM_PDL
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site35 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site35:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
SW=40x8192x8192,48x8192x8192,48x4096x14336,40x4096x4096,48x4096x4096,64x4096x4096,48x6144x4096
timeout 150 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
rm -f $OUT/bwo/weight_only.png
cut -d, -f1-10 $OUT/bwo/weight_only.csv | grep -E "WeightOnly|bf16 F.linear|int4pack"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py -k "hand_off" > $OUT/t_handoff.log 2>&1
echo "hand-off test rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_handoff.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_handoff.log | head -5
timeout $((500 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py > $OUT/t_var.log 2>&1
echo "variant tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_var.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_var.log | head -5
[ $SECONDS -lt 520 ] && timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k "w4a16 or w8a16" > $OUT/t_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_llama.log 2>/dev/null)" | tee -a $OUT/times.txt
grep -iE "relative error|^FAILED|^ERROR" $OUT/t_llama.log 2>/dev/null | cut -c1-120 | head
