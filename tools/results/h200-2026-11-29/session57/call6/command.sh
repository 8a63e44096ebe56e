# Session 57 call 6 (2026-11-29), carry [".whl"], EMPTY kernel cache: the SM80 W8A16 upcast kernels (generated/sm80_mixed,
# CUTLASS 2's mixed-input upcast GEMM with the per-channel scale in its EVT) on the H200 from sm_90 machine code:
# tests/test_weight_only_upcast_sm80_on_sm90_gpu.py (its fixture builds the 2 kernels). No extension is needed.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc57f CUTLASS_GEMM_SM80_ARCHS=80,90
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/site57
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site57 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site57:$PWD
L=$OUT/logs; mkdir -p $L
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider -s tests/test_weight_only_upcast_sm80_on_sm90_gpu.py \
  > $L/test_upcast.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/test_upcast.log
grep -E "passed|failed|error|relative error|rc=|Error|assert" $L/test_upcast.log | head -30
