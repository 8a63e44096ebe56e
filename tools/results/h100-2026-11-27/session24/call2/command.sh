# Session 24 call 2 (2026-11-27), carry [".whl"]: where the overlapped-promotion mainloop pays, for SELECTION. EMPTY
# cache: the extension (background) and 13 bf16 kernels (64x128 pingpong, 128x128 cooperative 1x1 and 1x2 clusters,
# each with scale_a "k" and "mn", CUTLASS's mainloop and the overlapped one; 256x128 1x2 "mn" with CUTLASS's mainloop,
# which ptxas says spills 592 bytes); the blockwise benchmark with those side by side at mid M (64..1024 x 7168 x 2048,
# 512 x 8192^2), then a second process at the large shapes of call 1 (a repeat, rows now labelled "overlap").
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s24b
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site24 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site24:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
NAMES=sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0,sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfamn_t64x128x128_c1x1x1_pingpong_persistent_s0,sm90_blockwise_e4m3_bf16_sfamn_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0,sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0,sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x2x1_cooperative_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0
ARGS=""; for n in ${NAMES//,/ }; do ARGS="$ARGS --name $n"; done
timeout 300 python3 tools/generate_kernels.py --blockwise --out /tmp/gen24 --compile --jobs 13 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
timeout 200 python3 tools/benchmark.py blockwise --shapes 64x7168x2048,128x7168x2048,256x7168x2048,512x7168x2048,1024x7168x2048,512x8192x8192 --choices $NAMES --out $OUT/mid > $OUT/bench_mid.log 2>&1
echo "bench mid rc=$? at ${SECONDS}s"
timeout $((570 - SECONDS)) python3 tools/benchmark.py blockwise --shapes 4096x7168x2048,2048x8192x8192,8192x8192x8192 --choices $NAMES --out $OUT/large > $OUT/bench_large.log 2>&1
echo "bench large rc=$? at ${SECONDS}s"
for f in $OUT/bench_mid.log $OUT/bench_large.log; do grep -E "^\| .*(per-token|selected|blockwise t|torch)" $f | awk -F'|' '{print $2,$3,$4,$5,$6}' | sed 's/  */ /g; s/cutlass_gemm //; s/blockwise t//; s/ persistent//; s/cooperative/coop/'; done
cd $OUT && tar czf all.tgz --remove-files * ; ls
