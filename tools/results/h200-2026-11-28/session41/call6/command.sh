# Session 41 call 6 (kind nvidia-h200), EMPTY kernel cache: probe/bias_conv.py (cuDNN fp16 with and without a bias, and
# the int4 layer from either conv, on the batch-1 1x1 convs; the kernels each cuDNN call launches).
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session41
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc41f
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site41 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site41:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 100 python3 $S/probe/bias_conv.py $OUT/bias > $OUT/bias.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
cat $OUT/bias/bias.md; tail -n 5 $OUT/bias.log
