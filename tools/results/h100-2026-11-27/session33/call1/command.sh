# Session 33 call 1 (2026-11-27), carry [".whl", "devtmp/s33/marlin"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session33/call1/command.sh
# The library's W4A16 decode layer beside Marlin on the H100 (probe/marlin_vs.py). devtmp/s33/marlin holds, unchanged,
# marlin/marlin_cuda.cpp, marlin/marlin_cuda_kernel.cu, marlin/__init__.py and LICENSE of github.com/IST-DASLab/marlin
# at commit 2f6d7c1 (not part of this repository); Marlin is built with torch's cpp_extension for sm_90 while the
# library's extension builds on an empty cache.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s33a
mkdir -p $CUTLASS_GEMM_CACHE_DIR /tmp/mb33
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site33 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site33:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
M=devtmp/s33/marlin
(python3 -c "
from torch.utils.cpp_extension import load
load('marlin_cuda', ['$M/marlin/marlin_cuda.cpp', '$M/marlin/marlin_cuda_kernel.cu'], build_directory='/tmp/mb33',
     extra_cuda_cflags=['-gencode=arch=compute_90,code=sm_90'], verbose=True)" > $OUT/marlin_build.log 2>&1; echo "marlin rc=$? at ${SECONDS}s" >> $OUT/times.txt) &
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" >> $OUT/times.txt
wait
cat $OUT/times.txt
PYTHONPATH=/tmp/mb33:$M:$PYTHONPATH timeout $((560 - SECONDS)) python3 tools/results/h100-2026-11-27/session33/probe/marlin_vs.py $OUT/marlin_vs.md > $OUT/marlin_vs.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
tail -5 $OUT/marlin_vs.log
cat $OUT/marlin_vs.md
