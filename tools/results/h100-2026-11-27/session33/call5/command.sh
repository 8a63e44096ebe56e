# Session 33 call 5 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session33/call5/command.sh
# The hand-off change (ops/wo_heuristics.py: MIXED_FROM_M 17 -> 33, TABLE rows for 17..32 rows from call 4). The
# extension and the SM90 mixed-input set (36 kernels, 16 jobs) built on an empty cache side by side; the weight-only
# benchmark at 24 / 32 / 64 rows (bf16 F.linear beside, one process); the weight-only and mixed-input GPU tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s33c
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* && mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site33 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site33:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/times.txt ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen33 --compile --jobs 16 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "mixed kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)" >> $OUT/times.txt
wait
cat $OUT/times.txt
SW=24x8192x8192,32x8192x8192,64x8192x8192,24x28672x4096,32x28672x4096,64x28672x4096,24x4096x14336,32x4096x14336,64x4096x14336
timeout 200 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
timeout $((580 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py \
  tests/test_weight_only_gpu.py tests/test_wo_heuristics.py > $OUT/t_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
tail -n 1 $OUT/t_wo.log; grep -E "^(FAILED|ERROR)" $OUT/t_wo.log | head -5
grep -E "^\| (24|32|64)x" $OUT/bwo/weight_only.md | grep -E "bf16 F.linear|w4a16 g128 \||w8a16 \||mixed"
