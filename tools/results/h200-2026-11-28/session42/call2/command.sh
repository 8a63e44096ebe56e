# Session 42 call 2 (kind nvidia-h200), EMPTY kernel cache: (a) the weight-only mma kernels' epilogue forms
# (ext.wo_set_epilogue: 2 the bias staged + row-by-row stores, the new default; 1 staged, stored by column block; 0 the
# form before this session), probe/epilogue.py, to attribute call 1's speed-up (the 16-byte stores of call 1 are gone:
# 4-7% slower at 56x56, even elsewhere); (b) the int8 implicit-GEMM conv's tiles / stages / clusters on the 3x3 convs at
# batch 32 as the int8 chain runs them (probe/conv_tiles.py; 16 kernels built here), against cuDNN fp16 without a bias.
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session42
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc42b
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site42 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site42:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --conv --out /tmp/gen42b --compile --jobs 12 \
  $(python3 $S/probe/conv_tiles.py --names) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 3 $OUT/kernels.log | tr '\n' ' ')"
timeout 170 python3 $S/probe/epilogue.py $OUT/epilogue > $OUT/epilogue.log 2>&1
echo "epilogue rc=$? at ${SECONDS}s"; cat $OUT/epilogue/epilogue.md 2>/dev/null | tail -n 30; tail -n 2 $OUT/epilogue.log | cut -c1-300
timeout $((560 - SECONDS)) python3 $S/probe/conv_tiles.py $OUT/tiles > $OUT/tiles.log 2>&1
echo "tiles rc=$? at ${SECONDS}s"; grep "^###" $OUT/tiles/conv_tiles.md; tail -n 3 $OUT/tiles.log | cut -c1-600
tar czf /tmp/all42b.tgz -C $OUT . && mv /tmp/all42b.tgz $OUT/all.tgz
