python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site33 .whl/*.whl
export PYTHONPATH=/tmp/site33:$PWD CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s33a
M=devtmp/s33/marlin_nohint
mkdir -p /tmp/mb33n
python3 -c "
from torch.utils.cpp_extension import load
load('marlin_cuda', ['$M/marlin/marlin_cuda.cpp', '$M/marlin/marlin_cuda_kernel.cu'], build_directory='/tmp/mb33n',
     extra_cuda_cflags=['-gencode=arch=compute_90,code=sm_90', '-lineinfo'])" > /tmp/mbn.log 2>&1; echo build rc=$?; tail -3 /tmp/mbn.log
PYTHONPATH=/tmp/mb33n:$M:$PYTHONPATH python3 devtmp/s33/dbg.py 2>&1 | tail -4
PYTHONPATH=/tmp/mb33n:$M:$PYTHONPATH timeout 150 /usr/local/cuda/bin/compute-sanitizer --print-limit 3 python3 devtmp/s33/dbg.py 2>&1 | grep -v "Host Frame" | head -40
