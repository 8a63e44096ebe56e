# Session 22 call 6 (2026-11-27), carry [".whl"]: the committed code. EMPTY cache: the extension, then
# probe/probe_split_pf.py (int4 g128 at 1 / 16 x 8192^2 and 4096 x 14336: forced split counts x the prefetch budget
# of programmatic dependents), data for the next session's W4A16 work. $OUT packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s22f
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site22 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site22:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 90 python3 tools/results/h100-2026-11-27/session22/probe/probe_split_pf.py $OUT/split_pf.md > $OUT/split_pf.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
cat $OUT/split_pf.md
cd $OUT && tar czf all.tgz --remove-files * ; ls
