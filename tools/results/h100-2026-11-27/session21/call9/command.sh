# Session 21 call 9 (2026-11-27), carry [".whl"]: the weight streams of the GEMV (gemv_w8a8.cuh ld_stream) and of the
# weight-only direct kernels (wo_direct.cuh ld_weight16) as coherent loads (ld.global.L1::no_allocate.L2::128B) instead
# of the read-only path (ld.global.nc...): every load after a programmatic dependent's wait then coherent. EMPTY cache:
# the extension; the PDL tests; the decode and weight-only benchmarks at call 3's shapes (compare with call 3's rows).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s21i
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site21 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site21:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 60 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_pdl_gpu.py > $OUT/tests_pdl.log 2>&1
echo "pdl tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_pdl.log)"
SH=1x8192x8192,16x8192x8192,1x4096x14336,16x4096x14336,1x14336x4096,16x14336x4096,1x28672x4096,16x28672x4096
timeout 40 python3 tools/benchmark.py decode --no-tiles --shapes $SH --out $OUT/bd > $OUT/bench_decode.log 2>&1
echo "decode bench rc=$? at ${SECONDS}s"
grep -E "^\| [0-9]" $OUT/bd/decode.md | head -8 | cut -d'|' -f2-3,7
SW=1x8192x8192,16x8192x8192,1x28672x4096,16x28672x4096,1x4096x14336,16x4096x14336
timeout 40 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s"
grep -E "w4a16 g128 \||w8a16 \|" $OUT/bench_wo.log | cut -d'|' -f2,3,5,6
