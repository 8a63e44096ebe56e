# Session 22 call 1 (2026-11-27), carry [".whl"]: weight-only direct x16 variants 20-22 (no register spills: 104-128
# registers at 512 threads per SM, where v18's 80 spill 60 bytes) and the extension's PDL policy knob for the
# weight-only kernels (ext.wo_set_pdl_policy). EMPTY cache: the extension; probe_wo22.py (variants x policies at
# M = 1 / 8 / 16, three shapes, int8 and int4); the blockwise fp8 decode GEMV with PDL (benchmark.py blockwise
# --no-tiles at M <= 16); Nsight Compute of the M = 16 int8 kernels at 8192^2.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s22a
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site22 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site22:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
P=tools/results/h100-2026-11-27/session22/probe
timeout 240 python3 $P/probe_wo22.py $OUT/wo22.md > $OUT/wo22.log 2>&1
echo "wo probe rc=$? at ${SECONDS}s"
SB=1x8192x8192,8x8192x8192,16x8192x8192,16x4096x14336,16x28672x4096,16x7168x2048
timeout 120 python3 tools/benchmark.py blockwise --no-tiles --shapes $SB --out $OUT/bb > $OUT/bench_block.log 2>&1
echo "blockwise bench rc=$? at ${SECONDS}s"
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
for spec in "wo 16 8192 8192 8 0" "wo 16 8192 8192 8 18" "wo 16 8192 8192 8 22" "gemv 16 8192 8192"; do
  tag=$(echo $spec | tr ' ' '_')
  [ $SECONDS -gt 540 ] && break
  timeout 60 $NCU --set full --kernel-name regex:"wo_|gemv_w8a8" --launch-skip 4 --launch-count 1 -o $OUT/prof_$tag \
    python3 $P/wprof.py $spec > $OUT/prof_$tag.log 2>&1
  echo "ncu $tag rc=$? at ${SECONDS}s"
  $NCU --import $OUT/prof_$tag.ncu-rep --page details > $OUT/prof_${tag}.txt 2>&1
done
ls $OUT
