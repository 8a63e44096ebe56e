# Session 8 call 7 (2026-11-23), carry [".whl"]: the fast-path GPU test fixed (call 6 built its layer with K = 320,
# not a multiple of its group 128: the layer refused, as it should) and the mixed-input GPU tests with the zero-point
# kernels built (call 6 left them unbuilt under CUTLASS_GEMM_JIT=0).
# Ran on call 6's machine while still warm: the torch extension and call 6's kernels were in /tmp/cgc already (not an empty cache).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl
export PYTHONPATH=/tmp/site:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
M=""; for d in f16 bf16; do for b in int4 int8; do for z in sym zp; do M="$M --name sm90_mixed_${d}_${b}_${z}_t128x128x64_c1x1x1_cooperative_s0"; done; done; done
( python3 tools/generate_kernels.py --mixed --out /tmp/gen --compile --jobs 8 $M 2>&1 | grep -v "^nvcc:" > $OUT/kernels_mixed.log ) &
wait; echo "builds at ${SECONDS}s"; tail -qn 1 $OUT/extension.log $OUT/kernels_mixed.log
export CUTLASS_GEMM_JIT=0
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py tests/test_weight_only_gpu.py > $OUT/gpu_tests_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s"; tail -n 4 $OUT/gpu_tests_wo.log
