# Session 22 call 4 (2026-11-27), carry [".whl"]: two wider direct x16 variants (23: 8x1 warps, 24: 8x2; 256 columns
# per CTA, so each CTA's staged x serves twice the weight of variant 22's 128), for W4A16 at M = 16. EMPTY cache: the
# extension; the variant sweep at M = 8 / 16 (its rows into this copy's TABLE, probe/apply_table.py); the weight-only
# benchmark at M = 16; then the GPU tests that run the weight-only kernels through layers (tiny Llama, mixed-input,
# weight-only convs, nn) until the time limit. $OUT packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s22d
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site22 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site22:$PWD
P=tools/results/h100-2026-11-27/session22/probe
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 150 python3 tools/bench_wo_sweep.py --out $OUT/sweep --m 8,16 > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"
grep -E "^\| 16x.*v(4|18|22|23|24) |\*" $OUT/sweep/wo_sweep.md | cut -c1-110 | head -40
python3 $P/apply_table.py $OUT/sweep/wo_table.py > $OUT/table_rows.txt 2>&1 && cp cutlass_gemm/ops/wo_heuristics.py $OUT/
echo "table rc=$? at ${SECONDS}s"
SW=16x8192x8192,16x28672x4096,16x4096x14336,8x8192x8192
timeout 100 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
grep -E "w4a16 g128 \||w8a16 \|" $OUT/bench_wo.log | head -12
timeout $((570 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py tests/test_conv_gpu.py \
  tests/test_weight_only_mixed_gpu.py tests/test_nn_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR" $OUT/tests.log | head
cd $OUT && tar czf all.tgz --remove-files * ; ls
