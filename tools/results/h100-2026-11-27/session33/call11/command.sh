# Session 33 call 11 (2026-11-27), carry [".whl", "devtmp/s33/cgc"], from the repository root:
#   bash tools/results/h100-2026-11-27/session33/call11/command.sh
# Call 10 again for int8 (its per-channel op call failed there: group_size None, fixed) and for int4 / int8 at 48 / 64 rows,
# where the layer hands N >= 4096 to the mixed kernel: 4096 x 4096 and 6144 x 4096 (the mixed kernel took 50 / 38 us at
# 32 rows there in call 10). devtmp/s33/cgc: the
# three bf16 mixed kernels of call 4 (built on the development machine, command in call4/command.sh), copied into a fresh
# cache folder; the extension builds there.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s33g
rm -rf $CUTLASS_GEMM_CACHE_DIR && mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/s33/cgc/. $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site33 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site33:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout $((560 - SECONDS)) python3 tools/results/h100-2026-11-27/session33/probe/handoff.py $OUT/handoff.md --m 17,32,48,64 --bits 8,4 \
  --shapes 4096x4096,6144x4096 --vids 2,3,27,28 --mixed-op > $OUT/handoff.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
grep -c "building kernel" $OUT/handoff.log; tail -3 $OUT/handoff.log
cat $OUT/handoff.md
