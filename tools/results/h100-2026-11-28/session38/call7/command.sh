# Session 38 call 7 (2026-11-28), carry [".whl"], from the repository root: probe/first_row.py in 8 fresh processes (the
# decode benchmark's first timed row, batch by batch, device and host time), after the extension build (EMPTY cache).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s38b
mkdir -p $CUTLASS_GEMM_CACHE_DIR
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site38 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site38:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
echo "extension at ${SECONDS}s" | tee $OUT/times.txt
cp tools/results/h100-2026-11-28/session38/probe/first_row.py tools/_first_row.py
for i in 1 2 3 4 5 6 7 8; do
  echo "== process $i" >> $OUT/first_row.log
  (cd tools && timeout 60 python3 _first_row.py >> $OUT/first_row.log 2>&1)
done
rm -f tools/_first_row.py
echo "all done at ${SECONDS}s" | tee -a $OUT/times.txt
cat $OUT/first_row.log
