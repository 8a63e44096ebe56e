# Session 57 call 1 (2026-11-29), carry [".whl"], EMPTY kernel cache: the new SM89 (Ada fp8) kernel family run on the
# H200 from sm_90 machine code (CUTLASS_GEMM_SM89_ARCHS=89,90). The extension beside the 24 SM89 kernels and the 4 SM80
# int8 kernels the test and probe take (CUTLASS_GEMM_SM80_ARCHS=80,90), then tests/test_sm89_on_sm90_gpu.py, then
# probe/sm89_speed.py (the two mma.sync families side by side on this GPU).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc57a CUTLASS_GEMM_SM89_ARCHS=89,90 CUTLASS_GEMM_SM80_ARCHS=80,90
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/site57
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site57 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site57:$PWD
L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $L/ext.log ) &
( python3 tools/generate_kernels.py --sm 89 --out /tmp/gen57 --compile --all --jobs 12 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $L/kernels89.log; echo "rc=$? at ${SECONDS}s" >> $L/kernels89.log ) &
S=sm80_int8_bf16_scaled
python3 tools/generate_kernels.py --out /tmp/gen57b --compile --jobs 4 \
  --name ${S}_token_channel_t32x128x128_c1x1x1_multistage_s4_a16x16x8 \
  --name ${S}_token_channel_t128x128x64_c1x1x1_multistage_s5_a16x16x8 \
  --name ${S}_token_channel_t256x128x64_c1x1x1_multistage_s3_a16x16x8 \
  --name ${S}_bias_token_channel_t32x128x128_c1x1x1_multistage_s4_a16x16x8 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $L/kernels80.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $L/ext.log) / $(tail -n 2 $L/kernels89.log | tr '\n' ' ') / $(tail -n 1 $L/kernels80.log)"
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout 240 $T -s tests/test_sm89_on_sm90_gpu.py > $L/test_sm89.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/test_sm89.log
echo "test_sm89_on_sm90_gpu: $(grep -E '[0-9]+ (passed|failed|error)' $L/test_sm89.log | tail -n 1) $(tail -n 1 $L/test_sm89.log)"
grep -h "^FAILED\|^ERROR\|first use\|worst relative\|relative error" $L/test_sm89.log | head -30
timeout 150 python3 tools/results/h200-2026-11-29/session57/probe/sm89_speed.py > $OUT/sm89_speed.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; tail -n 8 $OUT/sm89_speed.log
