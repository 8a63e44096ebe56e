# Session 61 call 4 (2026-11-29), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-29/session61/validate2.sh
# heuristics.PARTIAL after call 3 (which added the wave condition: the 256-row tile's waves may cost no more than the
# table tile's), out of sample again: rows and shapes neither call 2 nor call 3 ran. EMPTY kernel cache; the 6 kernels
# of probe/oob_rows.py, then its sweep.
set -u
SECONDS=0
S=tools/results/h200-2026-11-29/session61
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc61w CUTLASS_GEMM_FAST_PATH=0
SETUP=$(python3 tools/device_setup.py $OUT --fresh) || exit 1
eval "$SETUP"
python3 $S/probe/oob_rows.py names > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen61w --compile --jobs 16 $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "probe kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout $((570 - SECONDS)) python3 $S/probe/oob_rows.py sweep $OUT/oob_valid2.json 140,145,395,405,655,660,910,915 \
  12288x4096,22016x4096,4096x11008,5120x5120,13824x5120,3072x8192 > $OUT/oob_valid2.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"
cd $OUT && tar czf /tmp/all61w.tgz . && find . -type f ! -name oob_valid2.json -delete && mv /tmp/all61w.tgz all.tgz; ls
