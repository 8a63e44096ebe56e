# Session 34 call 2 (2026-11-28), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session34/call2/command.sh
# The new selection (int8 rows up to 256 rows and the int4 wide-layer row with the 128-wide K tile, their 64-wide
# forms for group 64): the extension and the 56 SM90 mixed-input kernels built side by side on an empty cache
# (/tmp/cgc_s34b, kept for call 3 while the machine stays warm), then the mixed-input and heuristics GPU tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s34b
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* && mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site34 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site34:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/times.txt ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen34b --compile --jobs 16 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "mixed kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)" >> $OUT/times.txt
wait
cat $OUT/times.txt
timeout $((590 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py \
  tests/test_wo_heuristics.py > $OUT/t_mixed.log 2>&1
echo "mixed tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_mixed.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_mixed.log | cut -c1-220 | head -8
