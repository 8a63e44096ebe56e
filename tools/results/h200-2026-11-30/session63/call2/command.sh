# Session 63 call 2 (2026-11-30), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-30/session63/call2.sh (this file, moved to call2/command.sh after the call)
# The pad kernel with 4 loads in flight per thread (pad_rows.cu) and the rules' new form (tile_rules.OpPadRule: a bound
# for the 256-row units; the blockwise family's own OP_PAD_E4M3), from an EMPTY kernel cache: the extension beside the
# 43 kernels of probe/kernels2.txt, the pad / early-launch / blockwise padded-rows / op tests, then
#   A: probe/pad_pdl.py sweep (arms force, force_plain, nopad, own, copy) on session 62's call-2 points and 3 smaller
#      shapes: 12 rows x 13 shapes;
#   fit: probe/fit.py on A: the rules (scaled_mm, blockwise) with the best geometric mean of unpadded / chosen time;
#   B: the fitted rules out of sample (arms rule, force, nopad): 12 other rows x 8 other shapes.
set -u
SECONDS=0
S=tools/results/h200-2026-11-30/session63
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc63b
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen63b --compile --jobs 14 --list $S/probe/kernels2.txt 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_rowpad_gpu.py tests/test_pdl_gpu.py \
  "tests/test_blockwise_gpu.py::test_mostly_empty_last_tiles_run_on_whole_tiles" \
  "tests/test_blockwise_gpu.py::test_row_major_scale_a_relaid_at_deep_k" tests/test_ops_gpu.py \
  -k "test_rowpad_gpu or test_pdl_gpu or whole_tiles or relaid or mostly_empty or compile or cuda_graph or opcheck" \
  > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 6 $OUT/tests.log
ROWS_A=17,40,100,140,200,260,395,520,655,700,910,1000
SHAPES_A=8192x8192,28672x4096,4096x4096,7168x2048,14336x4096,4096x14336,22016x4096,5120x5120,13824x5120,3072x8192,2048x2048,4096x2048,2048x4096
timeout 200 python3 $S/probe/pad_pdl.py sweep $OUT/pad_pdl2a.json $ROWS_A $SHAPES_A > $OUT/pad_pdl2a.log 2>&1
echo "sweep A rc=$? at ${SECONDS}s"
python3 $S/probe/fit.py $OUT/pad_pdl2a.json $OUT/fit2.json > $OUT/fit2.log 2>&1; echo "fit rc=$?"; cat $OUT/fit2.log
ROWS_B=24,60,120,180,230,300,350,450,600,750,850,980
SHAPES_B=8192x28672,4608x3584,18944x3584,3584x18944,16384x4096,1536x8192,3072x2048,9216x6144
timeout $((590 - SECONDS)) python3 $S/probe/pad_pdl.py rule $OUT/pad_pdl2b.json $ROWS_B $SHAPES_B $OUT/fit2.json \
  > $OUT/pad_pdl2b.log 2>&1
echo "sweep B rc=$? at ${SECONDS}s"; tail -n 1 $OUT/pad_pdl2b.log | cut -c1-300
cd $OUT && tar czf /tmp/all63b.tgz . && find . -type f ! -name "pad_pdl2*" ! -name tests.log ! -name "fit2*" -delete && mv /tmp/all63b.tgz all.tgz; ls
