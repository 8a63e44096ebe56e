# Session 63 call 3 (2026-11-30), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-30/session63/call3.sh (this file, moved to call3/command.sh after the call)
# The final code from an EMPTY kernel cache: heuristics.OP_PAD = OpPadRule(0.4, min_fetch=10M, fetch_per_copied=2)
# (fitted on call 2's set A offline, checked on its set B), blockwise_heuristics.OP_PAD_E4M3 unchanged; the extension
# beside the 43 kernels of probe/kernels3.txt, the GPU tests of the pad, the early launches, stream-K, the blockwise
# padded rows and test_ops_gpu.py's plan / compile / graph / opcheck tests, then the library's rules out of sample
# (set C: 12 rows x 8 shapes no call ran): probe/pad_pdl.py rule, arms rule / force / nopad (+ int8 with out=).
set -u
SECONDS=0
S=tools/results/h200-2026-11-30/session63
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc63c
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen63c --compile --jobs 14 --list $S/probe/kernels3.txt 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
ROWS_C=30,70,110,160,210,280,330,420,560,640,820,950
SHAPES_C=5120x13824,7168x7168,24576x4096,4096x6144,3840x7680,2560x2560,15360x5120,6144x16384
timeout 150 python3 $S/probe/pad_pdl.py rule $OUT/pad_pdl3.json $ROWS_C $SHAPES_C > $OUT/pad_pdl3.log 2>&1
echo "sweep C rc=$? at ${SECONDS}s"; tail -n 1 $OUT/pad_pdl3.log | cut -c1-300
timeout $((590 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_rowpad_gpu.py \
  tests/test_pdl_gpu.py tests/test_streamk_gpu.py \
  "tests/test_blockwise_gpu.py::test_mostly_empty_last_tiles_run_on_whole_tiles" \
  "tests/test_blockwise_gpu.py::test_row_major_scale_a_relaid_at_deep_k" tests/test_ops_gpu.py \
  -k "test_rowpad_gpu or test_pdl_gpu or test_streamk_gpu or whole_tiles or relaid or mostly_empty or compile or cuda_graph or opcheck" \
  > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 6 $OUT/tests.log
cd $OUT && tar czf /tmp/all63c.tgz . && find . -type f ! -name "pad_pdl3*" ! -name tests.log -delete && mv /tmp/all63c.tgz all.tgz; ls
