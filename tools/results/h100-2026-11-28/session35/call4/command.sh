# Session 35 call 4 (2026-11-28), carry [".whl", "devtmp/s35/cgc"], from the repository root:
#   bash tools/results/h100-2026-11-28/session35/call4/command.sh
# The final code (variants 33 / 35 dropped after call 3; the layer hand-off reads N and K): the small-M layer and variant files and
# the mixed-input file's layer tests. devtmp/s35/cgc: call 1's three prebuilt bf16 mixed kernels (the extension and
# any other mixed kernel build here).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s35d
rm -rf $CUTLASS_GEMM_CACHE_DIR && mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/s35/cgc/. $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site35 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site35:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout 240 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_gpu.py tests/test_wo_variants_gpu.py > $OUT/t_wo.log 2>&1
echo "wo layer tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_wo.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_wo.log | head -5
timeout $((540 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py -k layer > $OUT/t_mixed_layer.log 2>&1
echo "mixed layer tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_mixed_layer.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_mixed_layer.log | head -5
