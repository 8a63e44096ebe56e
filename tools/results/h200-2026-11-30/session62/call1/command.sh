# Session 62 call 1 (2026-11-30), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-30/session62/call1.sh
# The ops' row padding (runtime/rowpad.py) from an EMPTY kernel cache: the extension (new pad_rows.cu) beside the 37
# kernels of probe/kernels.txt (probe/pad_ops.py names: the sweep's and the new tests'), then the new GPU tests
# (tests/test_rowpad_gpu.py, the blockwise op's padded rows), then the sweep of probe/pad_ops.py until the call's end.
set -u
SECONDS=0
S=tools/results/h200-2026-11-30/session62
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc62
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen62 --compile --jobs 14 --list $S/probe/kernels.txt 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 240 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_rowpad_gpu.py \
  "tests/test_blockwise_gpu.py::test_unpadded_rows_run_on_whole_tiles" \
  "tests/test_blockwise_gpu.py::test_row_major_scale_a_relaid_at_deep_k" > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 12 $OUT/tests.log
timeout $((575 - SECONDS)) python3 $S/probe/pad_ops.py sweep $OUT/pad_ops.json > $OUT/pad_ops.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"; tail -n 4 $OUT/pad_ops.log
cd $OUT && tar czf /tmp/all62a.tgz . && find . -type f ! -name pad_ops.json ! -name tests.log -delete && mv /tmp/all62a.tgz all.tgz; ls
