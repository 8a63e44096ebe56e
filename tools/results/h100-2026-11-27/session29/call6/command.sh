# Session 29 call 6 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache, one H100:
#   bash tools/results/h100-2026-11-27/session29/call6/command.sh
# The new opcheck test of the per-block int8 op on its CUTLASS route (tests/test_blockint8_sm90_gpu.py), with the
# extension and the one kernel it calls built first.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s29f
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site29 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site29:$PWD
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1) &
python3 tools/generate_kernels.py --blockwise --out /tmp/gen29f --compile \
  --name sm90_blockwise_s8_bf16_silu_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl > $OUT/gen.log 2>&1
wait
echo "built at ${SECONDS}s" | tee $OUT/times.txt
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockint8_sm90_gpu.py -k opcheck > $OUT/t_opcheck.log 2>&1
echo "test rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_opcheck.log)" | tee -a $OUT/times.txt
grep -E "FAILED|ERROR|Error" $OUT/t_opcheck.log | head
