# Session 25 call 2 (2026-11-27), carry [".whl"]: the per-atom promotion with the two warpgroups issuing their atom
# batches in turn (mainloop="atom_ordered", names ending _ato; two named barriers) against the unordered one (_atm)
# at the 256 x 128 cooperative tile, 1x2 and 2x1 clusters. EMPTY cache: the extension (background) and 9 kernels; the
# candidate-kernel GPU test of the _ato kernels at 1x2 (same bits as CUTLASS's mainloop, float64 reference); the
# blockwise benchmark at the large done-when shapes.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25b
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
P=sm90_blockwise_e4m3_bf16
T=t256x128x128
CH="${P}_sfamn_${T}_c1x2x1_cooperative_persistent_s0_ato,${P}_sfamn_${T}_c2x1x1_cooperative_persistent_s0_ato,${P}_sfamn_${T}_c1x2x1_cooperative_persistent_s0_atm,${P}_sfamn_${T}_c2x1x1_cooperative_persistent_s0_atm,${P}_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl"
NAMES="$CH,${P}_sfak_${T}_c1x2x1_cooperative_persistent_s0_ato,${P}_sfak_${T}_c1x2x1_cooperative_persistent_s0,${P}_sfamn_${T}_c1x2x1_cooperative_persistent_s0,${P}_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl"
ARGS=""; for n in ${NAMES//,/ }; do ARGS="$ARGS --name $n"; done
timeout 300 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 14 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockwise_gpu.py -k "t256x128x128 and c1x2x1 and ato" > $OUT/tests_ato.log 2>&1
echo "ato tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_ato.log)"
grep -E "FAILED|ERROR|Error|assert" $OUT/tests_ato.log | head -20
timeout $((580 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 4096x7168x2048,2048x8192x8192,8192x8192x8192 --choices $CH --out $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "^\| .*(per-token|selected|blockwise t|torch)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$6}' | sed 's/  */ /g; s/cutlass_gemm //; s/ persistent//; s/cooperative/coop/'
cd $OUT && tar czf all.tgz --remove-files * ; ls
