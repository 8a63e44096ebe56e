# Session 63 call 1 (2026-11-30), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-30/session63/call1.sh (this file, moved to call1/command.sh after the call)
# The pad kernel launched as a programmatic dependent (pad_rows.cu) from an EMPTY kernel cache: the extension beside
# the 43 kernels of probe/kernels1.txt, then the GPU tests of the pad, the early launches and stream-K (the helpers
# session 62 refactored after its last GPU run) and test_ops_gpu.py's compile / graph / opcheck tests, then
# probe/pad_pdl.py: the copy's cost launched early and plainly, beside the unpadded op, at 45 of session 62's call-2 points.
set -u
SECONDS=0
S=tools/results/h200-2026-11-30/session63
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc63a
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen63a --compile --jobs 14 --list $S/probe/kernels1.txt 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 170 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_rowpad_gpu.py tests/test_pdl_gpu.py \
  tests/test_streamk_gpu.py tests/test_ops_gpu.py -k "test_rowpad_gpu or test_pdl_gpu or test_streamk_gpu or compile or cuda_graph or opcheck" \
  > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 8 $OUT/tests.log
timeout $((585 - SECONDS)) python3 $S/probe/pad_pdl.py sweep $OUT/pad_pdl1.json 17,100,140,200,260,395,520,700,910 \
  8192x8192,4096x4096,7168x2048,28672x4096,3072x8192 > $OUT/pad_pdl1.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"; tail -n 2 $OUT/pad_pdl1.log | cut -c1-400
cd $OUT && tar czf /tmp/all63a.tgz . && find . -type f ! -name pad_pdl1.json ! -name tests.log ! -name pad_pdl1.log -delete && mv /tmp/all63a.tgz all.tgz; ls
