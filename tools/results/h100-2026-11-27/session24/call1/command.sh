# Session 24 call 1 (2026-11-27), carry [".whl"]: the blockwise fp8 GEMM with the overlapped-promotion mainloop
# (kernels/cxx/blockwise_overlap.hpp, config mainloop="overlap", names ending _ovl). EMPTY cache: the extension (in
# the background) and the 12 candidate kernels (6 CUTLASS-mainloop, 6 overlapped; --jobs 12); the GPU tests of every
# candidate kernel (float64 bound + same bits as the CUTLASS-mainloop twin) and the selection's tests; then the
# blockwise benchmark with those 12 kernels side by side at four shapes. $OUT packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s24a
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site24 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site24:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
NAMES=sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_streamk_s0,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0,sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_streamk_s0,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl
ARGS=""; for n in ${NAMES//,/ }; do ARGS="$ARGS --name $n"; done
timeout 300 python3 tools/generate_kernels.py --blockwise --out /tmp/gen24 --compile --jobs 12 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockwise_gpu.py -k "candidate or every_element_vs" > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests.log | head -20
timeout $((570 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 1024x7168x2048,4096x7168x2048,2048x8192x8192,8192x8192x8192 --choices $NAMES --out $OUT/bench > $OUT/bench.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
grep -E "^\| .*(per-token|selected|blockwise t|torch)" $OUT/bench.log | awk -F'|' '{print $2,$3,$4,$5,$6}'
grep -A 12 "time ratio" $OUT/bench.log
cd $OUT && tar czf all.tgz --remove-files * ; ls
