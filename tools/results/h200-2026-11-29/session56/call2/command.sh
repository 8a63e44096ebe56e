# Session 56 call 2 (2026-11-29), carry [".whl"], fresh machine, EMPTY kernel cache: README's first command as a new
# user runs it (the package from the tree via PYTHONPATH instead of `pip install -e .`: the device has no index):
# generate_kernels.py --sm 90 --compile (the prebuilt set), then tools/demo.py, which builds the recorded list
# tools/demo_kernels.txt beside the extension before it runs, and names any kernel it still builds on first use.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc56b
rm -rf /tmp/cgc56b /tmp/site56
for w in .whl/*.whl; do pip install -q --no-index --no-deps --no-compile --target /tmp/site56 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site56:$PWD
echo "setup done at ${SECONDS}s"
python3 tools/generate_kernels.py --sm 90 --compile > $OUT/generate.log 2>&1
echo "generate_kernels rc=$? at ${SECONDS}s"; grep -E "^generated|^compiled" $OUT/generate.log
T1=$SECONDS
timeout -s INT $((590 - SECONDS)) python3 tools/demo.py > $OUT/demo.log 2>&1
echo "demo rc=$? at ${SECONDS}s ($((SECONDS - T1)) s)"
grep -E "^prebuild|^demo:|first use|rel. error|graph|FAILED|Error" $OUT/demo.log | grep -v "^nvcc" | head -n 50
