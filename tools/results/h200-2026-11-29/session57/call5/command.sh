# Session 57 call 5 (2026-11-29), carry [".whl"], EMPTY kernel cache: the SM90 paths after this session's routing
# changes (ops.gemm.kernel_sm / heuristics.family_sm, ops.conv_igemm.kernel_config, the demo's device checks):
# tools/demo.py as a new user runs it (extension + its listed kernels built first), then tests/test_ops_gpu.py.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc57e
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/site57
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site57 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site57:$PWD
L=$OUT/logs; mkdir -p $L
timeout 330 python3 tools/demo.py > $L/demo.log 2>&1; echo "demo rc=$? at ${SECONDS}s" | tee -a $L/demo.log
grep -E "prebuild|error|tiny Llama|w8a8|w4a16|w8a16|fp8|ResNet|batch|first use|skipped|Traceback" $L/demo.log | head -60
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider -x"
timeout 200 $T tests/test_ops_gpu.py > $L/test_ops.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/test_ops.log
echo "test_ops_gpu: $(grep -E '[0-9]+ (passed|failed|error)' $L/test_ops.log | tail -n 1) $(tail -n 1 $L/test_ops.log)"
grep -h "^FAILED\|^ERROR" $L/test_ops.log | head
