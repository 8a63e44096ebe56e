# Session 40 call 5 (kind nvidia-h200), EMPTY cache: the row blocks at many rows (probe/rows_large.py): is
# row_block_limit too generous on narrow layers at batch 8 / 32 conv sizes and 512..4096-row linear layers?
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session40
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc40e
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site40 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site40:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen40 --compile --jobs 2 --name sm90_mixed_f16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 200 python3 $S/probe/rows_large.py $OUT/large > $OUT/large.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
tar czf /tmp/all40.tgz -C $OUT . && mv /tmp/all40.tgz $OUT/all.tgz
