# Session 12 call 12 (2026-11-26), carry [".whl", "devtmp/nvmath"] (nvmath-python 1.0.0, cp312 wheel): the host cost
# of a cuBLASLt matmul through our ctypes binding vs nvmath-python's Cython binding (nvmath/nvmath_host.py).
# (A first run of it, two rounds fewer, stopped at a 16-row shape torch._int_mm refuses: call12/nvmath_host_first.log.)
set -u
SECONDS=0
export PYTHONUNBUFFERED=1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site12 .whl/*.whl devtmp/nvmath/*.whl || exit 1
export PYTHONPATH=/tmp/site12:$PWD
python3 -c "import cuda.core, cuda.bindings, cuda.pathfinder; print('cuda-core', cuda.core.__version__, 'cuda-bindings', cuda.bindings.__version__, 'pathfinder', cuda.pathfinder.__version__)" 2>&1 | tail -1
timeout 400 python3 tools/results/h100-2026-11-26/session12/nvmath/nvmath_host.py $OUT > $OUT/nvmath_host.log 2>&1
echo "rc=$? at ${SECONDS}s"; tail -n 60 $OUT/nvmath_host.log
