# Session 56 call 1 (2026-11-29), carry [".whl"], fresh machine, EMPTY kernel cache: tools/demo.py whole, with its
# first-guess kernel list (tools/demo_kernels.txt) prebuilt beside the extension, recording every kernel it loads
# (--record and CUTLASS_GEMM_RECORD_KERNELS, so an interrupted run still records at exit).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc56
rm -rf /tmp/cgc56 /tmp/site56
for w in .whl/*.whl; do pip install -q --no-index --no-deps --no-compile --target /tmp/site56 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site56:$PWD
nproc; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import torch, transformers, torchvision; print(torch.__version__, transformers.__version__, torchvision.__version__)"
CUTLASS_GEMM_RECORD_KERNELS=$OUT/recorded_env.txt timeout -s INT 570 python3 tools/demo.py --record $OUT/recorded.txt > $OUT/demo.log 2>&1
echo "demo rc=$? at ${SECONDS}s"
grep -v "^nvcc\|cached  \| s  sm90" $OUT/demo.log | tail -n 60
grep -c "first use" $OUT/demo.log
