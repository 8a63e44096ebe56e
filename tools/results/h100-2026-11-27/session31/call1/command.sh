# Session 31 call 1 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session31/call1/command.sh
# Weight-only decode: the direct kernels stage their x in cp.async groups waited for one by one (WoArgs::x_parts,
# default 4) instead of all before the main loop, and variant 27 (direct x16 8x2). The extension on an empty cache;
# the x-parts probe (every direct variant at M = 1 / 8 / 16, parts 1 / 2 / 4 / 8 timed in alternation, same bits
# checked); the weight-only benchmark at the decode shapes; the variant GPU tests. $OUT packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s31a
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site31 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site31:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout 200 python3 tools/results/h100-2026-11-27/session31/probe/probe_xparts.py $OUT/xparts.md > $OUT/probe.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
SW=1x8192x8192,8x8192x8192,16x8192x8192,1x28672x4096,16x28672x4096,1x4096x14336,16x4096x14336
timeout 100 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
timeout $((570 - SECONDS)) python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_wo_variants_gpu.py > $OUT/t_variants.log 2>&1
echo "variants tests rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
tail -n 3 $OUT/t_variants.log; grep -E "^(FAILED|ERROR)" $OUT/t_variants.log | head -5
cat $OUT/xparts.md
grep -E "w4a16 g128 \||w8a16 \|" $OUT/bench_wo.log | head -24
cd $OUT && tar czf all.tgz --remove-files * && ls
