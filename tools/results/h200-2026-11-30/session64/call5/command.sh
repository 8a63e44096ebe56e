# Session 64 call 5 (2026-11-30), carry [".whl"], kind nvidia-h200, from the repository root:
#   bash tools/results/h200-2026-11-30/session64/call5.sh (this file, moved to call5/command.sh after the call)
# The build of a device call in one command: tools/generate_kernels.py --compile --extension (the extension in a thread
# beside the kernels' nvcc jobs) from an EMPTY kernel cache, probe/kernels2.txt's 9 kernels; then test_pdl_gpu.py (the
# extension's kernels, their first use in a process after that build).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc64e
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
python3 tools/generate_kernels.py --out /tmp/gen64e --compile --extension --jobs 14 \
  --list tools/results/h200-2026-11-30/session64/probe/kernels2.txt 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/build.log
echo "build rc=${PIPESTATUS[0]} at ${SECONDS}s"; tail -n 3 $OUT/build.log
timeout $((215 - SECONDS)) python3 -m pytest -m gpu -q -p no:cacheprovider tests/test_pdl_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/tests.log
