# Session 56 call 5 (2026-11-29), carry [".whl"], EMPTY kernel cache: the extension beside the two mixed-input kernels of
# the weight-only ResNet-50 (kernels.txt, built through `generate_kernels.py --list`), then probe/profile_fw.py: torch.profiler over
# the eager forwards (fp16 cuDNN, w4a16, w8a16 at batch 32; w4a16 at batch 1), host calls by self CPU time.
set -u
SECONDS=0
D=tools/results/h200-2026-11-29/session56
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc56e
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site56 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site56:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --out /tmp/gen56e --compile --list $D/call4/kernels.txt 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout $((560 - SECONDS)) python3 $D/probe/profile_fw.py $OUT/probe > $OUT/probe.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
cat $OUT/probe/profile_fw.md 2>/dev/null || tail -n 30 $OUT/probe.log
