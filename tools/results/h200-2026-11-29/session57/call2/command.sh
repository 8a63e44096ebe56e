# Session 57 call 2 (2026-11-29): why the SM89 fp8 kernels ran ~6x slower than the SM80 int8 ones on the H200 in call 1.
# Build one SM89 kernel (sm_89 + sm_90 machine code) and one SM80 int8 kernel of the same tile, then count the
# tensor-core and conversion instructions in each machine-code image (cuobjdump -sass).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc57b CUTLASS_GEMM_SM89_ARCHS=89,90 CUTLASS_GEMM_SM80_ARCHS=80,90
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/site57
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site57 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site57:$PWD
K89=sm89_e4m3_bf16_scaled_token_channel_t256x128x64_c1x1x1_multistage_s3_a16x16x8
K80=sm80_int8_bf16_scaled_token_channel_t256x128x64_c1x1x1_multistage_s3_a16x16x8
python3 tools/generate_kernels.py --out /tmp/gen57c --compile --jobs 2 --name $K89 --name $K80 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" | tail -n 3
which cuobjdump || ls /usr/local/cuda/bin | head -40
for k in $K89 $K80; do
  so=$(find $CUTLASS_GEMM_CACHE_DIR -name "*${k}*.so" | head -n 1); echo "== $k: $so"
  cuobjdump -lelf "$so"
  for arch in sm_89 sm_80 sm_90; do
    cuobjdump -sass -arch $arch "$so" > $OUT/${k}_${arch}.sass 2>/dev/null || continue
    [ -s $OUT/${k}_${arch}.sass ] || continue
    echo "-- $arch: $(grep -oE '\b(HMMA|IMMA|QMMA|HGMMA|F2FP|F2F|I2F|PRMT|HADD2|HFMA2)[.A-Z0-9]*' $OUT/${k}_${arch}.sass | sort | uniq -c | sort -rn | head -n 12 | tr '\n' ';')"
  done
done
gzip -9 $OUT/*.sass
echo "done at ${SECONDS}s"
