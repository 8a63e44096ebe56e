# Session 64 call 2 (2026-11-30), carry [".whl"], kind nvidia-h200, from the repository root:
#   bash tools/results/h200-2026-11-30/session64/call2.sh (this file, moved to call2/command.sh after the call)
# A padded scaled_mm call with and without out= since cg_launch's m_padded (the kernel stores the caller's M rows,
# into out when given): probe/pad_out.py on session 63 call 3's set C (12 rows x 8 shapes), arms force / rule / nopad,
# each without and with out=, and the caller's own padding; from an EMPTY kernel cache (the extension beside the 9
# kernels of probe/kernels2.txt).
set -u
SECONDS=0
S=tools/results/h200-2026-11-30/session64
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc64b
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen64b --compile --jobs 12 --list $S/probe/kernels2.txt 2>&1 | tr '\r' '\n' \
  | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
ROWS_C=30,70,110,160,210,280,330,420,560,640,820,950
SHAPES_C=5120x13824,7168x7168,24576x4096,4096x6144,3840x7680,2560x2560,15360x5120,6144x16384
timeout $((585 - SECONDS)) python3 $S/probe/pad_out.py $OUT/pad_out2.json $ROWS_C $SHAPES_C > $OUT/pad_out2.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"; tail -n 8 $OUT/pad_out2.log | cut -c1-300
cd $OUT && tar czf /tmp/all64b.tgz . && find . -type f ! -name "pad_out2*" -delete && mv /tmp/all64b.tgz all.tgz; ls
