# Session 34 call 4 (2026-11-28), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session34/call4/command.sh
# WIDE_N_ROWS for 65..256 rows (existing kernels: int4 256x128 stream-K / 128x256 2x1, int8 128x128 persistent /
# 128x256 2x1 at N >= 24576): the extension and the 28 bf16 mixed-input kernels built side by side on an empty cache;
# the op-level selection test (N = 4096 / 24576, groups 64 / 128 / per channel, 40 / 100 / 200 rows, every element
# against float64), then the weight-only benchmark at 64..256 rows of 28672 x 4096 (and 8192^2 for comparison).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s34c
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* && mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site34 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site34:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/times.txt ) &
NAMES="$(python3 -c 'from cutlass_gemm.kernels.mixed_input import default_configs as d; print(" ".join("--name " + c.name for c in d() if c.act_dtype == "bf16"))')"
python3 tools/generate_kernels.py --mixed --out /tmp/gen34c --compile --jobs 16 $NAMES 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "mixed kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)" >> $OUT/times.txt
wait
cat $OUT/times.txt
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py -k selected_kernel > $OUT/t_sel.log 2>&1
echo "selection tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_sel.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_sel.log | cut -c1-220 | head -5
SW=64x28672x4096,96x28672x4096,128x28672x4096,192x28672x4096,256x28672x4096,128x8192x8192,256x8192x8192
timeout $((590 - SECONDS)) python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
rm -f $OUT/bwo/weight_only.png $OUT/bwo/weight_only.md
grep -E "cutlass_mixed|bf16 F.linear" $OUT/bwo/weight_only.csv | cut -d, -f3-10
