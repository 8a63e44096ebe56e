# Session 23 call 4 (2026-11-27), carry [".whl"]: after call 3 (the per-block layers serve a strided last dimension
# through their Python path; the fast path reads CUTLASS_GEMM_FAST_PATH once). EMPTY cache: the extension; the host
# cost of each piece of the per-block layers' eager call (probe/probe_host.py, 16 x 256 x 256); the fast-path GPU tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s23d
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site23 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site23:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
nproc > $OUT/cpu.txt; lscpu | grep -E "Model name|MHz" >> $OUT/cpu.txt
timeout 120 python3 tools/results/h100-2026-11-27/session23/probe/probe_host.py $OUT/host.md > $OUT/host.log 2>&1
echo "host probe rc=$? at ${SECONDS}s"; cat $OUT/host.log
timeout $((570 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_block_linear_fast_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
grep -E "FAILED|ERROR|Error" $OUT/tests.log | head -20
cd $OUT && tar czf all.tgz --remove-files * ; ls
