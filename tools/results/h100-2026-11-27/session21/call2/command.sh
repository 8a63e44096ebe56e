# Session 21 call 2 (2026-11-27), carry [".whl"]: call 1 found the chain of dependent layers differing when replayed
# from a CUDA graph WITH PDL OFF. EMPTY cache: the extension, then probe_chain.py (per-layer comparison of graph
# replay vs eager over chains of Int8Linear dynamic / WeightOnlyLinear int4 layers, fast path and op path).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s21b
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site21 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site21:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
D=tools/results/h100-2026-11-27/session21/call2
timeout 300 python3 $D/probe_chain.py $OUT/probe_chain.md > $OUT/probe_chain.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
cat $OUT/probe_chain.log | tail -40
