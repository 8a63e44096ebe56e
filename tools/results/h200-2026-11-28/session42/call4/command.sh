# Session 42 call 4 (kind nvidia-h200), the machine of call 3 still warm (its kernel cache /tmp/cgc42c reused): clusters
# for the tile-K-128 conv tiles (probe/conv_tiles.py with CONV_TILES_SET=clusters), 3x3 convs at batch 32, int8 chain form.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc42c CONV_TILES_SET=clusters
export PYTHONPATH=/tmp/site42:$PWD
S=tools/results/h200-2026-11-28/session42
python3 tools/generate_kernels.py --conv --out /tmp/gen42d --compile --jobs 12 $(python3 $S/probe/conv_tiles.py --names) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
timeout $((280 - SECONDS)) python3 $S/probe/conv_tiles.py $OUT/tiles > $OUT/tiles.log 2>&1
echo "tiles rc=$? at ${SECONDS}s"; cat $OUT/tiles/conv_tiles.md
