# Session 30 call 3 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache, nvidia-h100-x4:
#   bash tools/results/h100-2026-11-27/session30/call3/command.sh
# The chain's eager host path trimmed (Int8ConvActivation.q NHWC: no view ops between links; the KRSC weight and
# scale views kept per layer; buffers read without Module.__getattr__): the chain GPU tests again on an empty
# cache, then `benchmark.py conv --quick --resnet` (eager wall clock of the chained ResNet-50 and layers).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s30c
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site30 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site30:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1) &
python3 tools/generate_kernels.py --conv --out /tmp/gen30 --compile --jobs 56 \
  $(python3 tools/conv_kernels_needed.py all --args) > $OUT/gen.log 2>&1
echo "conv kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/gen.log)" | tee $OUT/times.txt
wait
echo "built at ${SECONDS}s" | tee -a $OUT/times.txt
timeout $((330 - SECONDS)) python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider tests/test_conv_chain_gpu.py \
  > $OUT/t_conv.log 2>&1
echo "conv tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_conv.log)" | tee -a $OUT/times.txt
grep -E "rel\. error|FAILED|ERROR" $OUT/t_conv.log | cut -c1-240
timeout $((560 - SECONDS)) python3 tools/benchmark.py conv --quick --resnet --out $OUT/bconv > $OUT/bconv.log 2>&1
echo "bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
grep -A12 "int8 chain (GPU" $OUT/bconv/conv.md 2>/dev/null; grep -E "geometric|eager .* graph" $OUT/bconv/conv.md 2>/dev/null
cd $OUT && tar czf all.tgz --remove-files * && ls
