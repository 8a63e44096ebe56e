# Session 33 call 4 (2026-11-27), carry [".whl", "devtmp/s33/cgc"], from the repository root:
#   bash tools/results/h100-2026-11-27/session33/call4/command.sh
# The small-M / mixed-input hand-off at 17..64 rows (probe/handoff.py). devtmp/s33/cgc: the three SM90 mixed-input
# kernels the layer takes at these rows for bf16 (int4 t128x32 c2x1 and t128x64, int8 t128x64), compiled on the
# development machine by
#   python3 tools/generate_kernels.py --mixed --out /tmp/gen33 --compile --jobs 2 --cache-dir devtmp/s33/cgc \
#     --name sm90_mixed_bf16_int4_sym_t128x32x64_c2x1x1_cooperative_s0_streamk \
#     --name sm90_mixed_bf16_int4_sym_t128x64x64_c1x1x1_cooperative_s0_streamk \
#     --name sm90_mixed_bf16_int8_sym_t128x64x64_c1x1x1_cooperative_s0_streamk
# copied into a fresh cache folder; the extension builds there.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s33b
rm -rf $CUTLASS_GEMM_CACHE_DIR && mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/s33/cgc/. $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site33 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site33:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout $((560 - SECONDS)) python3 tools/results/h100-2026-11-27/session33/probe/handoff.py $OUT/handoff.md > $OUT/handoff.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
grep -c "building kernel" $OUT/handoff.log; tail -3 $OUT/handoff.log
cat $OUT/handoff.md
