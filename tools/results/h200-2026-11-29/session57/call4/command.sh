# Session 57 call 4 (2026-11-29), carry [".whl"], EMPTY kernel cache: tests/test_conv_int8_sm80_on_sm90_gpu.py with
# its two ResNet-50 tests added (w8a8-int8, w8a8-int8-static, the int8 chain: every k x k conv on the SM80 conv
# kernels, the 1x1 convs and fc on the SM80 GEMMs), everything with sm_90 code beside sm_80. The extension beside the
# 27 SM80 conv kernels and the 72 SM80 GEMMs of the default set; kernels outside them are built on first use and
# recorded (CUTLASS_GEMM_RECORD_KERNELS).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc57d CUTLASS_GEMM_SM80_ARCHS=80,90
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/site57
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site57 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site57:$PWD
L=$OUT/logs; mkdir -p $L
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
( python3 tools/generate_kernels.py --conv --sm 80 --out /tmp/gen57d --compile --jobs 6 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $L/conv_kernels.log; echo "rc=$? at ${SECONDS}s" >> $L/conv_kernels.log ) &
python3 tools/generate_kernels.py --sm 80 --out /tmp/gen57e --compile --all --jobs 10 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $L/gemm_kernels.log; echo "rc=$? at ${SECONDS}s" >> $L/gemm_kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 2 $L/conv_kernels.log | tr '\n' ' ') / $(tail -n 2 $L/gemm_kernels.log | tr '\n' ' ')"
export CUTLASS_GEMM_RECORD_KERNELS=$OUT/kernels_loaded.txt
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout 400 $T -s tests/test_conv_int8_sm80_on_sm90_gpu.py > $L/test_conv80.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/test_conv80.log
echo "test_conv_int8_sm80_on_sm90_gpu: $(grep -E '[0-9]+ (passed|failed|error)' $L/test_conv80.log | tail -n 1) $(tail -n 1 $L/test_conv80.log)"
grep -h "^FAILED\|^ERROR\|Error\|first use\|conv kernels ran\|ResNet-50" $L/test_conv80.log | head -30
grep -vc "^#" $OUT/kernels_loaded.txt
