# Session 25 call 1 (2026-11-27), carry [".whl"]: the per-atom promotion mainloop (kernels/cxx/blockwise_overlap.hpp
# AtomPromotionMainloop, config mainloop="atom", names ending _atm) at the 256 x 128 cooperative tile, the per-token fp8
# kernel's tile. EMPTY cache: the extension (background) and 10 kernels; the candidate-kernel GPU test of the _atm
# kernels and their CUTLASS-mainloop twins (same bits, float64 reference); the blockwise benchmark with the atom tiles
# beside the selected 128 x 128 overlapped ones at the done-when shapes.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25a
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
P=sm90_blockwise_e4m3_bf16
ATM="${P}_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm,${P}_sfamn_t256x128x128_c1x1x1_cooperative_persistent_s0_atm,${P}_sfamn_t256x128x128_c2x1x1_cooperative_persistent_s0_atm"
SEL="${P}_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl,${P}_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl"
NAMES="$ATM,$SEL,${P}_sfak_t256x128x128_c1x2x1_cooperative_persistent_s0_atm,${P}_sfak_t256x128x128_c1x2x1_cooperative_persistent_s0,${P}_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0,${P}_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl,${P}_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl"
ARGS=""; for n in ${NAMES//,/ }; do ARGS="$ARGS --name $n"; done
timeout 300 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 14 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockwise_gpu.py -k "t256x128x128 and atm" > $OUT/tests_atm.log 2>&1
echo "atm tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_atm.log)"
grep -E "FAILED|ERROR|Error|assert" $OUT/tests_atm.log | head -20
timeout $((580 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 4096x7168x2048,2048x8192x8192,8192x8192x8192,1024x7168x2048 --choices $ATM,$SEL --out $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "^\| .*(per-token|selected|blockwise t|torch)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$6}' | sed 's/  */ /g; s/cutlass_gemm //; s/ persistent//; s/cooperative/coop/'
cd $OUT && tar czf all.tgz --remove-files * ; ls
