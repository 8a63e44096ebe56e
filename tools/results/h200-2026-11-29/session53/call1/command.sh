# Session 53 call 1 (kind nvidia-h200), EMPTY kernel cache, JIT on (what a new user does), carry [".whl"], code of
# 4b1c414 (session 52's final): the two GPU test files that had not run since session 52 changed the W8A8 layer's
# eager call (tests/test_nn_gpu.py: every layer scheme vs float64, compile fullgraph, no host sync; and
# tests/test_llama_gpu.py: the tiny Llama under every scheme, logits and 16 greedy tokens from a CUDA graph).
# 16 pytest processes at once (13 Llama shards of one test each, 3 of test_nn_gpu), so that first-use builds of
# different kernels run side by side on the 16 cores; a kernel two processes need is built once (file lock).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc53a
rm -rf $CUTLASS_GEMM_CACHE_DIR
# one wheel at a time: the wheel of nvmath-python here is for another Python than the device's (skipped; only the public
# cublaslt.int8_matmul needs it)
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site53 $w > /dev/null 2>&1 || echo "skipped $w"; done
python3 -c "import sys; print(sys.version)"
export PYTHONPATH=/tmp/site53:$PWD
L=/tmp/L53a; rm -rf $L; mkdir -p $L
nvidia-smi --query-gpu=name,driver_version --format=csv > $L/gpu.txt 2>&1
python3 -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__)" >> $L/gpu.txt 2>&1
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
for i in $(seq 0 12); do
  (CUTLASS_GEMM_TEST_SHARD=$i/13 timeout 560 $T tests/test_llama_gpu.py > $L/llama.$i.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/llama.$i.log) &
done
for i in 0 1 2; do
  (CUTLASS_GEMM_TEST_SHARD=$i/3 timeout 560 $T tests/test_nn_gpu.py > $L/nn.$i.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/nn.$i.log) &
done
wait
echo "done at ${SECONDS}s"
cat $L/gpu.txt
for f in $L/llama.*.log $L/nn.*.log; do echo "$(basename $f): $(grep -E '(passed|failed|error)' $f | tail -n 1) $(tail -n 1 $f)"; done
grep -h "relative error" $L/llama.*.log | cut -c1-200
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
(cd $CUTLASS_GEMM_CACHE_DIR && ls sm*/*.so 2>/dev/null | sed 's/-[0-9a-f]*\.so$//' | sort -u) > $L/kernels_built.txt
echo "kernels built: $(wc -l < $L/kernels_built.txt)"
tar czf $OUT/logs.tgz -C $L .
