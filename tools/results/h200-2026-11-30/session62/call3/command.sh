# Session 62 call 3 (2026-11-30), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-30/session62/call3.sh
# The final rule (heuristics.OP_PAD, fitted on call 2) from an EMPTY kernel cache: the extension beside the 37 kernels
# of probe/kernels3.txt (pad_ops.py names 3), then the GPU tests session 62 added or changed (test_rowpad_gpu.py, the
# blockwise op's padded rows, test_ops_gpu.py's plan, broadcast, fast-path, opcheck, compile and graph tests), then the
# rule out of sample: probe/pad_ops.py on rows and shapes neither call 1 nor call 2 ran, arms rule / force / nopad.
set -u
SECONDS=0
S=tools/results/h200-2026-11-30/session62
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc62c
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen62c --compile --jobs 14 --list $S/probe/kernels3.txt 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_rowpad_gpu.py \
  "tests/test_blockwise_gpu.py::test_mostly_empty_last_tiles_run_on_whole_tiles" \
  "tests/test_blockwise_gpu.py::test_row_major_scale_a_relaid_at_deep_k" tests/test_ops_gpu.py \
  -k "test_rowpad_gpu or whole_tiles or relaid or mostly_empty or per_tensor_scales or fast_path_matches or opcheck or compile or cuda_graph" \
  > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 6 $OUT/tests.log
timeout $((580 - SECONDS)) python3 $S/probe/pad_ops.py sweep $OUT/pad_ops3.json 20,135,150,270,400,530,660,780,900,1020 \
  12288x4096,4096x11008,6144x4096,10240x8192,2560x8192,11008x4096,18432x7168,8192x2048 rule,force,nopad \
  > $OUT/pad_ops3.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"; tail -n 2 $OUT/pad_ops3.log | cut -c1-300
cd $OUT && tar czf /tmp/all62c.tgz . && find . -type f ! -name pad_ops3.json ! -name tests.log -delete && mv /tmp/all62c.tgz all.tgz; ls
