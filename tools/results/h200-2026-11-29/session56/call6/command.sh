# Session 56 call 6 (2026-11-29), carry [".whl"], EMPTY kernel cache: the final tools/demo.py alone (its prebuild
# filtered to the GPU's kernel family; emission serialized by build._EMIT_LOCK while nvcc runs side by side).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc56f
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site56 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site56:$PWD
timeout -s INT 235 python3 tools/demo.py > $OUT/demo.log 2>&1
echo "demo rc=$? at ${SECONDS}s"
grep -E "^prebuild|^demo:|first use|rel. error|graph|FAILED|Error" $OUT/demo.log | grep -v "^nvcc" | tail -n 30
