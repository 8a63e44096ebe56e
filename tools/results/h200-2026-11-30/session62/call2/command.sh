# Session 62 call 2 (2026-11-30), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-30/session62/call2.sh
# Call 1 again after its two findings (README): probe/launches.py first (what a padded call launches, call by call),
# the tests with test_one_pad_launch_beside_the_gemm rewritten, the sweep with the probe's tensors kept alive. EMPTY
# kernel cache again (a new machine).
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
timeout 60 python3 $S/probe/launches.py > $OUT/launches.log 2>&1; echo "launches rc=$?"; cat $OUT/launches.log | cut -c1-400
timeout 240 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_rowpad_gpu.py \
  "tests/test_blockwise_gpu.py::test_unpadded_rows_run_on_whole_tiles" \
  "tests/test_blockwise_gpu.py::test_row_major_scale_a_relaid_at_deep_k" > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 12 $OUT/tests.log
timeout $((575 - SECONDS)) python3 $S/probe/pad_ops.py sweep $OUT/pad_ops.json > $OUT/pad_ops.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"; tail -n 4 $OUT/pad_ops.log
cd $OUT && tar czf /tmp/all62b.tgz . && find . -type f ! -name pad_ops.json ! -name tests.log ! -name launches.log -delete && mv /tmp/all62b.tgz all.tgz; ls
