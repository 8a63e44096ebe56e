# Session 51 call 2 (kind nvidia-h200), EMPTY kernel cache, code of 2823d64. Extension + the 7 kernels probe/band_tiles.py
# names (three SM90 tiles x int8 / e4m3, and the 64 x 64 int8 tile of the host probe). Runs the eager host-time
# breakdown (sel_layer.py host), then band_tiles.py: the padded layer with each tile forced at 256..1024 rows, K 2048..28672.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc51b
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site51 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site51:$PWD
D=tools/results/h200-2026-11-29/session51/probe
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 $D/band_tiles.py names > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen51b --compile --jobs 15 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) kernels): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0
timeout 90 python3 $D/sel_layer.py host $OUT/host.json > $OUT/host.log 2>&1
echo "host rc=$? at ${SECONDS}s"; head -n 40 $OUT/host.log
timeout $((585 - SECONDS)) python3 $D/band_tiles.py run $OUT/band_tiles.json > $OUT/band_tiles.log 2>&1
echo "band rc=$? at ${SECONDS}s"; cat $OUT/band_tiles.log | tail -n 80
