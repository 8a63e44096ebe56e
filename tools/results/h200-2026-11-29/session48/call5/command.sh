# Session 48 call 5 (kind nvidia-h200), EMPTY kernel cache, the final code: the op half of call 3-4's probe timed from
# CUDA graphs (probe/mid_rule_graph.py): calls 3-4 timed the op's eager Python path, whose host time exceeded the GPU
# time at the small shapes (the same kernel in both arms read 25.2 against 16.0 us). Builds only the four int8 kernels
# the probe runs (no torch extension: the CUTLASS route serves without it).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc48e
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site48 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site48:$PWD
D=tools/results/h200-2026-11-29/session48/probe
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
python3 tools/generate_kernels.py --blockwise --out /tmp/gen48g --compile --jobs 4 \
  $(printf -- "--name %s " $(python3 $D/mid_rule.py names)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/kernels_bw.log)"
export CUTLASS_GEMM_JIT=0
timeout $((590 - SECONDS)) python3 $D/mid_rule_graph.py $OUT/mid_rule_graph.json > $OUT/mid_rule_graph.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; cut -c1-160 $OUT/mid_rule_graph.log | tail -n 12
tar czf /tmp/all48e.tgz -C $OUT . && mv /tmp/all48e.tgz $OUT/all.tgz
