# Session 22 call 3 (2026-11-27), carry [".whl"]: every weight-only kernel launched as a programmatic dependent with
# its CTAs spread at most ceil(CTAs / SMs) per SM (wo_launch.cuh, policy 2, now the default), variants 20-22. EMPTY
# cache: the extension; the variant sweep at M = 1 / 4 / 8 / 16 (tools/bench_wo_sweep.py); its M <= 16 rows put
# into this copy's wo_heuristics.TABLE (probe/apply_table.py); the weight-only benchmark on them; the weight-only,
# variant, PDL and block-GEMV GPU tests until the time limit. Everything under $OUT is packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s22c
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site22 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site22:$PWD
P=tools/results/h100-2026-11-27/session22/probe
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 200 python3 tools/bench_wo_sweep.py --out $OUT/sweep --m 1,4,8,16 > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"
python3 $P/apply_table.py $OUT/sweep/wo_table.py > $OUT/table_rows.txt 2>&1 && cp cutlass_gemm/ops/wo_heuristics.py $OUT/
echo "table rc=$? at ${SECONDS}s"; cat $OUT/table_rows.txt | head -40
SW=1x8192x8192,4x8192x8192,8x8192x8192,16x8192x8192,1x28672x4096,16x28672x4096,1x4096x14336,16x4096x14336
timeout 150 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
grep -E "w4a16 g128 \||w8a16 \|" $OUT/bench_wo.log | head -30
timeout $((570 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_gpu.py \
  tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py tests/test_block_gemv_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR" $OUT/tests.log | head
cd $OUT && tar czf all.tgz --remove-files * ; ls
