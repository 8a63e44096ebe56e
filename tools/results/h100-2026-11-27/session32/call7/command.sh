# Session 32 call 7 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session32/call7/command.sh
# The final code (ab525e8: an unused helper dropped from wo_common.cuh after call 1): the extension on an empty cache,
# the weight-only GPU tests, and the weight-only benchmark at the M = 16 decode shapes.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s32g
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site32 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site32:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
SW=16x8192x8192,16x28672x4096,16x4096x14336
timeout 90 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
timeout $((570 - SECONDS)) python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/t_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
tail -n 1 $OUT/t_wo.log; grep -E "^(FAILED|ERROR)" $OUT/t_wo.log | head -5
grep -E "^\| 16x" $OUT/bwo/weight_only.md | grep -E "bf16 F.linear|w4a16 g128 \||w8a16"
