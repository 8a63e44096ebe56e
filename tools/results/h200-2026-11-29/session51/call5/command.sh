# Session 51 call 5 (kind nvidia-h200): the GEMM op's C++ fast path (PlanKey with K) against its Python path, and the
# GPU autotune test (plans keyed by K always now): tests/test_ops_gpu.py -k "cpp_fast_path or autotune", the 19
# kernels they run built first (call5/kernels_named.txt: every variant at the tiles of 17..1000 x 256 x 512 and the
# autotune candidates), JIT off; the extension from call 3's cache when the machine is still warm, else built.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc51c
[ -d /tmp/site51 ] || python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site51 .whl/*.whl > /dev/null 2>&1
export PYTHONPATH=/tmp/site51:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen51e --compile --jobs 15 \
  $(printf -- "--name %s " $(cat tools/results/h200-2026-11-29/session51/call5/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
CUTLASS_GEMM_JIT=0 timeout $((580 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_ops_gpu.py \
  -k "cpp_fast_path or autotune" > $OUT/test_ops_gpu.log 2>&1; echo "rc=$?" >> $OUT/test_ops_gpu.log
echo "tests at ${SECONDS}s: $(tail -n 2 $OUT/test_ops_gpu.log | tr '\n' ' ')"
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
