# Session 33 call 10 (2026-11-27), carry [".whl", "devtmp/s33/cgc"], from the repository root:
#   bash tools/results/h100-2026-11-27/session33/call10/command.sh
# The 17..32-row TABLE rows at shapes it was not measured on (its catch-all rows: int4 variant 27, int8 variant 28):
# probe/handoff.py at 4096 x 4096, 6144 x 4096, 14336 x 4096 and 1024 x 4096, the layer (TABLE's choice) against variant 2
# (the choice there before session 33), variants 27 / 28, and the mixed-input kernel through the op. devtmp/s33/cgc: the
# three bf16 mixed kernels of call 4 (built on the development machine, command in call4/command.sh), copied into a fresh
# cache folder; the extension builds there.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s33f
rm -rf $CUTLASS_GEMM_CACHE_DIR && mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/s33/cgc/. $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site33 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site33:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout $((560 - SECONDS)) python3 tools/results/h100-2026-11-27/session33/probe/handoff.py $OUT/handoff.md --m 17,24,32 \
  --shapes 4096x4096,6144x4096,14336x4096,1024x4096 --vids 2,27,28 --mixed-op > $OUT/handoff.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
grep -c "building kernel" $OUT/handoff.log; tail -3 $OUT/handoff.log
cat $OUT/handoff.md
