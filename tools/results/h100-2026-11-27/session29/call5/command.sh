# Session 29 call 5 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache, one H100:
#   bash tools/results/h100-2026-11-27/session29/call5/command.sh
# The final code end to end: the tiny Llama under the per-block schemes (int8 per-block prefill through the I2FP
# CUTLASS kernel, decode through the I2FP GEMV) and per-token int8, the extension and the two 64-row blockwise kernels
# built first, the rest on first use.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s29e
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site29 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site29:$PWD
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1) &
python3 tools/generate_kernels.py --blockwise --out /tmp/gen29e --compile --jobs 2 \
  --name sm90_blockwise_s8_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl \
  --name sm90_blockwise_e4m3_bf16_sfak_t64x128x128_c1x1x1_pingpong_persistent_s0_ovl > $OUT/gen.log 2>&1
wait
echo "built at ${SECONDS}s" | tee $OUT/times.txt
timeout $((430 - SECONDS)) python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider tests/test_llama_gpu.py \
  -k "block128 or w8a8-int8]" > $OUT/t_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_llama.log)" | tee -a $OUT/times.txt
grep -E "relative error|FAILED|ERROR" $OUT/t_llama.log | cut -c1-220
cd $OUT && tar czf all.tgz --remove-files * && ls
