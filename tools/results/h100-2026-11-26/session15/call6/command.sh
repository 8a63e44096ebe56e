# Session 15 call 6 (2026-11-26), carry [".whl", "devtmp/cache_s15"]: probe of the plain W8A8 decode GEMV at M 9..16
# with 4 chunks per step (gemv_w8a8_set_unroll) against its rule; the decode benchmark rows as they stand.
set -u
SECONDS=0
D=tools/results/h100-2026-11-26/session15/call6
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s15f
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s15/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site15 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site15:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 150 python3 $D/probe_plain_gemv.py > $OUT/probe_plain_gemv.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
