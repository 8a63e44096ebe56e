# Session 41 call 4 (kind nvidia-h200), EMPTY kernel cache: do the programmatic dependent launch and the CTA spread help
# the batch-1 1x1 convs' small grids? probe/pdl_conv.py under the default (pdl policy 2 and 1 in one process) and under
# CUTLASS_GEMM_PDL=0 (plain launches), the routed layer and five mma variants per conv, cuDNN fp16 beside; then
# `benchmark.py conv --weight-only` (a third sample).
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session41
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc41d
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site41 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site41:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 150 python3 $S/probe/pdl_conv.py $OUT/pdl pdl_on > $OUT/pdl_on.log 2>&1
echo "pdl on rc=$? at ${SECONDS}s"
CUTLASS_GEMM_PDL=0 timeout 100 python3 $S/probe/pdl_conv.py $OUT/pdl pdl_off > $OUT/pdl_off.log 2>&1
echo "pdl off rc=$? at ${SECONDS}s"
cat $OUT/pdl/pdl_pdl_on.md $OUT/pdl/pdl_pdl_off.md | grep "^|"
timeout 80 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_conv_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "geometric" $OUT/cwo/*.md
tar czf /tmp/all41.tgz -C $OUT . && mv /tmp/all41.tgz $OUT/all.tgz
echo "done at ${SECONDS}s"
