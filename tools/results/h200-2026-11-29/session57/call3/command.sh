# Session 57 call 3 (2026-11-29), carry [".whl"], EMPTY kernel cache: the new SM80 int8 implicit-GEMM conv kernels
# (CUTLASS 2 mainloop + visitor epilogue, generated/sm80_conv) on the H200 from sm_90 machine code. The extension beside
# the 27 kernels (CUTLASS_GEMM_SM80_ARCHS=80,90), then tests/test_conv_int8_sm80_on_sm90_gpu.py (the SM90 conv GPU
# tests run again on the SM80 family), then probe/conv80_speed.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc57c CUTLASS_GEMM_SM80_ARCHS=80,90
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/site57
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site57 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site57:$PWD
L=$OUT/logs; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
python3 tools/generate_kernels.py --conv --sm 80 --out /tmp/gen57c --compile --jobs 14 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $L/kernels.log; echo "rc=$? at ${SECONDS}s" >> $L/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 3 $L/kernels.log | tr '\n' ' ')"
grep -B2 -A12 "error" $L/kernels.log | head -40
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout 300 $T -s tests/test_conv_int8_sm80_on_sm90_gpu.py > $L/test_conv80.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/test_conv80.log
echo "test_conv_int8_sm80_on_sm90_gpu: $(grep -E '[0-9]+ (passed|failed|error)' $L/test_conv80.log | tail -n 1) $(tail -n 1 $L/test_conv80.log)"
grep -h "^FAILED\|^ERROR\|Error\|first use\|conv kernels ran" $L/test_conv80.log | head -30
timeout 100 python3 tools/results/h200-2026-11-29/session57/probe/conv80_speed.py > $OUT/conv80_speed.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; tail -n 10 $OUT/conv80_speed.log
