# Session 41 call 5 (kind nvidia-h200), EMPTY kernel cache: the mma variants on the batch-1 1x1 convs with int8 weights
# (per channel, group 128) and int4 g128 beside, against the rules' bits-blind choice (probe/int8_conv.py).
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session41
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc41e
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site41 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site41:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 200 python3 $S/probe/int8_conv.py $OUT/int8 > $OUT/int8.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
grep "^|" $OUT/int8/int8.md | cut -d'|' -f2-7,17-20
tar czf /tmp/all41.tgz -C $OUT . && mv /tmp/all41.tgz $OUT/all.tgz
