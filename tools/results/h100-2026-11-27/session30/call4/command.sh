# Session 30 call 4 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache, nvidia-h100-x4:
#   bash tools/results/h100-2026-11-27/session30/call4/command.sh
# The chain GPU tests after their last change (the ResNet-50 chain's forward under torch's sync debug mode "error":
# no host synchronisation; the capture through tests/gpu_helpers.py): the extension and the ResNet-50 bf16 + int8-
# output conv kernels built first, then tests/test_conv_chain_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s30d
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site30 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site30:$PWD
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1) &
python3 tools/generate_kernels.py --conv --out /tmp/gen30 --compile --resnet --jobs 48 > $OUT/gen.log 2>&1
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/gen.log)" | tee $OUT/times.txt
timeout $((300 - SECONDS)) python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider tests/test_conv_chain_gpu.py \
  > $OUT/t_chain.log 2>&1
echo "chain tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_chain.log)" | tee -a $OUT/times.txt
grep -E "rel\. error|FAILED|ERROR|building|Error" $OUT/t_chain.log | cut -c1-240
cd $OUT && tar czf all.tgz --remove-files * && ls
