# Session 40 call 1 (kind nvidia-h200), EMPTY kernel cache: the torch extension with the mma kernels' row blocks
# (M > 64 as grid-z blocks), the two mixed-input kernels the narrow layers take today; the row-block sweep
# (probe/rows_sweep.py), the row-block GPU tests, and `benchmark.py conv --weight-only` on the committed routing.
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session40
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc40
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site40 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site40:$PWD
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen40 --compile --jobs 4 \
  --name sm90_mixed_f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 --name sm90_mixed_f16_int8_sym_t128x128x64_c1x1x1_cooperative_s0 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 200 python3 $S/probe/rows_sweep.py $OUT/rows > $OUT/rows.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"
timeout 90 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py -k "row_blocks or refused" > $OUT/tests_rows.log 2>&1
echo "row-block tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_rows.log)"
timeout 120 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_conv_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "geometric" $OUT/cwo/*.md
tar czf /tmp/all40.tgz -C $OUT . && mv /tmp/all40.tgz $OUT/all.tgz
