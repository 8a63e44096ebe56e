# Session 61 (2026-11-29), carry [".whl"], from the repository root: bash tools/results/h200-2026-11-29/session61/oob.sh
# Partial M tiles on a caller's unpadded operands (docs/performance.md "Partial M tiles"): probe/oob_rows.py sweep
# (each SM90 per-token tile unpadded against the chosen tile on padded operands, zero or random padding rows), then
# Nsight Compute (--set full) on the int8 256 x 128 c1x2 tile at 260 rows unpadded / 512 padded and the 128 x 128 tile
# at 260 / 384, e4m3 256 x 128 last if time is left. FRESH=1: EMPTY kernel cache (call 2); setup: tools/device_setup.py.
# Everything but the summary files goes into all.tgz / reps.tgz (the device tool returns a few files per call).
set -u
SECONDS=0
S=tools/results/h200-2026-11-29/session61
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc61 CUTLASS_GEMM_FAST_PATH=0
SETUP=$(python3 tools/device_setup.py $OUT ${FRESH:+--fresh}) || exit 1
eval "$SETUP"
python3 $S/probe/oob_rows.py names > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen61 --compile --jobs 16 $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout 200 python3 $S/probe/oob_rows.py sweep $OUT/oob_rows.json > $OUT/oob_rows.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"; cut -c1-200 $OUT/oob_rows.log | tail -n 100
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU ($($NCU --version | tail -n 1))"
for c in "t256 int8 260 260" "t256 int8 260 512" "t128 int8 260 260" "t128 int8 260 384" "t256 e4m3 260 260" "t256 e4m3 260 512"; do
  [ $SECONDS -gt 500 ] && { echo "no time for $c"; continue; }
  tag=$(echo $c | tr ' ' '_')
  timeout 90 $NCU -k regex:device_kernel --launch-skip 5 --launch-count 1 --set full --import-source no -f -o $OUT/ncu_$tag \
    python3 $S/probe/oob_rows.py launch $c 8192 8192 zero > $OUT/ncu_$tag.log 2>&1
  echo "ncu $c rc=$? at ${SECONDS}s"
  $NCU -i $OUT/ncu_$tag.ncu-rep --page raw --csv > $OUT/raw_$tag.csv 2>&1
  $NCU -i $OUT/ncu_$tag.ncu-rep --page details > $OUT/details_$tag.txt 2>&1
  $NCU -i $OUT/ncu_$tag.ncu-rep --page source --csv --print-source sass > $OUT/sass_$tag.csv 2>&1 || echo "no sass page"
  grep -E "^  *(Duration|DRAM Throughput|Memory Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|Elapsed Cycles|Grid Size|Cluster Size)" $OUT/details_$tag.txt | head -12
done
gzip -f $OUT/sass_*.csv $OUT/raw_*.csv 2>/dev/null
echo "done at ${SECONDS}s"
cd $OUT && tar czf /tmp/reps61.tgz *.ncu-rep && rm *.ncu-rep && mv /tmp/reps61.tgz reps.tgz
tar czf /tmp/all61.tgz --exclude reps.tgz . && find . -type f ! -name reps.tgz -delete && mv /tmp/all61.tgz all.tgz && ls -la
