# Session 51 call 6 (kind nvidia-h200), EMPTY kernel cache, the committed code after the blockwise split. Extension +
# the 4 kernels probe/block_waves.py names; the probe: Fp8BlockLinear with its 128 x 128 tile against the 256 x 128
# per-atom tile, forced, at 384..1024 rows, the per-token Fp8Linear beside it.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc51f
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site51 .whl/*.whl > /dev/null 2>&1 || exit 1
export PYTHONPATH=/tmp/site51:$PWD
P=tools/results/h200-2026-11-29/session51/probe/block_waves.py
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 $P names > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen51f --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
CUTLASS_GEMM_JIT=0 timeout $((318 - SECONDS)) python3 $P run $OUT/block_waves.json > $OUT/block_waves.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; cat $OUT/block_waves.log | tail -n 30
