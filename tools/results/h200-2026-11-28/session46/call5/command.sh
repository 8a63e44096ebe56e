# Session 46 call 5 (kind nvidia-h200), empty kernel cache: the blockwise kernels launched as programmatic dependents
# (blockwise generator 8: the cooperative kernel's scale copies wait first, emit_blockwise._WAITING_AUX; the stream-K
# one clears its workspace with the programmatic fill). Builds the extension (the layers' per-group quantizers) and
# the 11 blockwise kernels below (the chains' and the float64 twins); tests/test_pdl_blockwise_gpu.py, the float64 checks of those kernels
# (test_blockwise_gpu.py candidates, test_blockint8_sm90_gpu.py bf16), then probe/pdl_streamk.py blockwise.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc46e
ls $CUTLASS_GEMM_CACHE_DIR > $OUT/cache_before.txt 2>&1; echo "cache entries before: $(wc -l < $OUT/cache_before.txt)"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site46 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site46:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
B="$( (cd tests && python3 test_pdl_blockwise_gpu.py); echo sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x1x1_cooperative_persistent_s0; echo sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl)"
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen46b --compile --jobs 10 $(printf -- "--name %s " $B) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/blockwise_kernels.log ) &
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/blockwise_kernels.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout 200 $T tests/test_pdl_blockwise_gpu.py > $OUT/tests_pdl_blockwise.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl_blockwise.log
echo "pdl blockwise tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_pdl_blockwise.log | tr '\n' ' ')"
SEL="each_candidate and ($(cd tests && python3 test_pdl_blockwise_gpu.py | grep e4m3 | tr '\n' ' ' | sed 's/ $//; s/ / or /g'))"
timeout 120 $T tests/test_blockwise_gpu.py -k "$SEL" > $OUT/tests_blockwise64.log 2>&1; echo "rc=$?" >> $OUT/tests_blockwise64.log
timeout 90 $T tests/test_blockint8_sm90_gpu.py -k "test_matches_float64 and out_dtype0" > $OUT/tests_bi8.log 2>&1; echo "rc=$?" >> $OUT/tests_bi8.log
echo "float64 tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_blockwise64.log | tr '\n' ' ') / $(tail -n 2 $OUT/tests_bi8.log | tr '\n' ' ')"
grep -h "^FAILED\|^ERROR" $OUT/tests_*.log | head -10
timeout $((585 - SECONDS)) python3 tools/results/h200-2026-11-28/session46/probe/pdl_streamk.py blockwise $OUT/blockwise.json > $OUT/blockwise.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; grep "^{" $OUT/blockwise.log
tar czf /tmp/all46e.tgz -C $OUT . && mv /tmp/all46e.tgz $OUT/all.tgz
