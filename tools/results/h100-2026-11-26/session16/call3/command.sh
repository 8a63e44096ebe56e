# Session 16 call 3 (2026-11-26), carry [".whl"]: the final code on an EMPTY kernel cache. The extension (quant kernels:
# per-group scale once per group) and the default SM90 GEMM set built side by side; then the quantization-op GPU tests
# that exercise the changed kernel and the new saturation test (per-group, many rows, asymmetric ties, views, opcheck,
# no host sync / compile / graphs), `benchmark.py quant`, and the rest of the file with the time left.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s16_final
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site16 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site16:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen16 --compile --jobs 10 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_sm90.log
wait
echo "builds at ${SECONDS}s: $(tail -n 1 $OUT/kernels_sm90.log) | $(tail -n 1 $OUT/extension.log)"
SEL="per_group or many_rows or asym_saturates or leading_dims or opcheck or no_host_sync"
timeout 250 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider --durations=8 tests/test_quant_ops_gpu.py -k "$SEL" > $OUT/tests_changed.log 2>&1
echo "tests (changed kernel) rc=$? at ${SECONDS}s: $(grep -E 'passed|failed' $OUT/tests_changed.log | tail -n 1)"
timeout 70 python3 tools/benchmark.py quant --out $OUT/bq > $OUT/bench_quant.log 2>&1
echo "bench rc=$? at ${SECONDS}s"
timeout $((545 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py -k "not ($SEL)" > $OUT/tests_rest.log 2>&1
echo "tests (rest) rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_rest.log)"
cd $OUT && cp bq/quant.md quant.md 2>/dev/null; tar czf all.tgz *.log *.md gpu.txt bq 2>/dev/null; ls
