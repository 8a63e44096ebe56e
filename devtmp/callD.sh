# call D: a machine with only the kernel wheel: no cache, JIT off, nvcc off PATH
set -u
python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
python3 -m pip install -q --no-index --no-deps --target /tmp/kw dist/cutlass_gemm_kernels_sm90-*.whl
ls -la dist/ | tee $OUT/wheel_ls.txt
export PYTHONPATH=/tmp/kw:/tmp/site:$PWD CUTLASS_GEMM_CACHE_DIR=/tmp/empty_cache CUTLASS_GEMM_JIT=0
rm -rf /tmp/empty_cache
export PATH=$(echo "$PATH" | tr ':' '\n' | grep -v -i cuda | paste -sd:)
unset CUDA_HOME CUDA_PATH
which nvcc || echo "nvcc not on PATH"
( time python3 tools/results/h100-2026-11-23/wheel/check_wheel.py ) 2>&1 | tee $OUT/check_wheel.log
find /tmp/empty_cache -type f | head | tee -a $OUT/check_wheel.log
