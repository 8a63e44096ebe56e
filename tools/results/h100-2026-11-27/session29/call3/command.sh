# Session 29 call 3 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session29/call3/command.sh
# Weight-only decode: four direct variants with one 32-column block per CTA and K over 8-16 warps (wo_launch.cuh
# 23-26), whose CTAs fill the SMs at 8192 columns without split-K. The extension on an empty cache; then GPU 0: the
# variant sweep at M = 1 / 8 / 16 (tools/bench_wo_sweep.py), its rows put into this copy's wo_heuristics.TABLE
# (session22/probe/apply_table.py), the weight-only benchmark on them; GPUs 1-3: the weight-only GPU test files.
# Everything under $OUT is packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s29c
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site29 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site29:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
T="python3 -m pytest -q -m gpu -p no:cacheprovider"
CUDA_VISIBLE_DEVICES=1 timeout 330 $T tests/test_wo_variants_gpu.py > $OUT/t_variants.log 2>&1 &
CUDA_VISIBLE_DEVICES=2 timeout 330 $T tests/test_pdl_gpu.py > $OUT/t_pdl.log 2>&1 &
CUDA_VISIBLE_DEVICES=3 timeout 330 $T tests/test_weight_only_gpu.py > $OUT/t_wo.log 2>&1 &
CUDA_VISIBLE_DEVICES=0 timeout 230 python3 tools/bench_wo_sweep.py --out $OUT/sweep --m 1,8,16 > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
python3 tools/results/h100-2026-11-27/session22/probe/apply_table.py $OUT/sweep/wo_table.py > $OUT/table_rows.txt 2>&1 && cp cutlass_gemm/ops/wo_heuristics.py $OUT/
SW=1x8192x8192,4x8192x8192,8x8192x8192,16x8192x8192,1x28672x4096,16x28672x4096,1x4096x14336,16x4096x14336
CUDA_VISIBLE_DEVICES=0 timeout 110 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
wait
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
for f in $OUT/t_*.log; do echo "== $f"; tail -n 1 $f; grep -E "^(FAILED|ERROR)" $f | head -5; done
cat $OUT/table_rows.txt | head -45
grep -E "w4a16 g128 \||w8a16 \|" $OUT/bench_wo.log | head -24
grep -F "*" $OUT/sweep/wo_sweep.md | head -60
cd $OUT && tar czf all.tgz --remove-files * && ls
