# Session 30 call 2 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache, nvidia-h100-x4:
#   bash tools/results/h100-2026-11-27/session30/call2/command.sh
# The whole int8 conv GPU file on the new conv launcher ABI (call 1 ran out of time in it while nvcc built the 1x1
# layers' GEMM kernels on first use): the extension, the SM90 default GEMM set and the conv tests' kernels built
# first, then tests/test_conv_int8_gpu.py and tests/test_conv_chain_gpu.py (the lease kept call 1's machine warm: same GPU, a new empty cache).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s30b
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site30 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site30:$PWD
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1) &
(python3 tools/generate_kernels.py --sm 90 --out /tmp/gen30g --compile --jobs 40 > $OUT/gen_gemm.log 2>&1) &
python3 tools/generate_kernels.py --conv --out /tmp/gen30 --compile --jobs 20 \
  $(python3 tools/conv_kernels_needed.py all --args) > $OUT/gen.log 2>&1
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/gen_gemm.log) / $(tail -n 1 $OUT/gen.log)" | tee $OUT/times.txt
timeout $((560 - SECONDS)) python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider tests/test_conv_int8_gpu.py \
  tests/test_conv_chain_gpu.py > $OUT/t_conv.log 2>&1
echo "conv tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_conv.log)" | tee -a $OUT/times.txt
grep -E "rel\. error|FAILED|ERROR|building" $OUT/t_conv.log | cut -c1-240
cd $OUT && tar czf all.tgz --remove-files * && ls
