# Session 22 call 5 (2026-11-27), carry [".whl"]: the committed kernels (call 3's). EMPTY cache: the extension; the
# per-block int8 decode GEMV (tools/bench_blockint8.py at M = 1 / 16, B = 128 and 64) launched as a programmatic
# dependent (the default) and, in a second process, with CUTLASS_GEMM_PDL=0; then the PDL GPU tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s22e
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site22 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site22:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
S=1x8192x8192,16x8192x8192,16x4096x14336,16x28672x4096,16x4096x4096
for b in 128 64; do
  timeout 60 python3 tools/bench_blockint8.py --shapes $S --block $b > $OUT/bi8_b$b.md 2>&1; echo "B=$b rc=$? at ${SECONDS}s"
  CUTLASS_GEMM_PDL=0 timeout 60 python3 tools/bench_blockint8.py --shapes $S --block $b > $OUT/bi8_b${b}_pdl_off.md 2>&1
  echo "B=$b PDL off rc=$? at ${SECONDS}s"
done
cat $OUT/bi8_b128.md $OUT/bi8_b64.md | grep -E "^\| (1|16) "
timeout $((400 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_gpu.py > $OUT/tests_pdl.log 2>&1
echo "pdl tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_pdl.log)"
cd $OUT && tar czf all.tgz --remove-files * ; ls
