# Session 13 call 1 (2026-11-26), carry [".whl"], fresh machine, EMPTY kernel cache. The split build (runtime/nvcc.py):
# (1) one kernel's first-use build alone on the machine, new vs commit 059754b's single nvcc run of the same source
# (coldstart/one_kernel.py); (2) the prebuilt set (15 kernels, 16 jobs) beside the torch extension build, as the
# README's cold-start row was measured; (3) full/step.sh: the whole GPU suite, continued by the next calls.
set -u
SECONDS=0
S=tools/results/h100-2026-11-26/session13
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s13
echo "cache entries at start: $(ls $CUTLASS_GEMM_CACHE_DIR 2>/dev/null | wc -l); nproc $(nproc)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site13 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site13:$PWD
python3 $S/coldstart/one_kernel.py $OUT > $OUT/one_kernel.log 2>&1
echo "one_kernel rc=$? at ${SECONDS}s"; cat $OUT/one_kernel.log | tail -n 6
mkdir -p /tmp/s13_state
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1 \
  && touch /tmp/s13_state/extension.done; echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
t0=$SECONDS
python3 tools/generate_kernels.py --sm 90 --out /tmp/gen_pre --compile --jobs 16 2>&1 | grep -v "^nvcc:" > $OUT/kernels_prebuilt.log
echo "prebuilt set in $((SECONDS - t0))s: $(tail -n 1 $OUT/kernels_prebuilt.log)"
wait; tail -n 2 $OUT/extension.log
ls -la $CUTLASS_GEMM_CACHE_DIR/sm90/*.so | awk '{print $5}' | sort -n | sed -n '1p;$p' | tr '\n' ' '; echo "(smallest, largest .so bytes)"
bash $S/full/step.sh $OUT 45 $SECONDS
