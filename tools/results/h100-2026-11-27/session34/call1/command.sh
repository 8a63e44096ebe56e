# Session 34 call 1 (2026-11-27/28), carry [".whl", "devtmp/s34/cgc"], from the repository root:
#   bash tools/results/h100-2026-11-27/session34/call1/command.sh
# The mixed-input kernels with a 128-element K tile (tools/bench_mixed_sweep.py --set tk128: the current SELECTION
# rows and ten / four TK 128 candidates, all 22 built on the CPU machine into the carried cache): the per-kernel
# float64 test on each, then the sweep from 33 rows (the mixed kernel's range since session 33). Also the small-M
# weight-only GPU tests (session 33's last TABLE edit, 17829e6, not rerun as a whole then).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s34a
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* && mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/s34/cgc/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site34 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site34:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
NAMES="$(python3 tools/bench_mixed_sweep.py --names --set tk128)"
export CUTLASS_GEMM_TEST_MIXED_KERNELS="$(echo $NAMES | sed 's/--name //g')"
timeout 120 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py -k "every_selectable and x128_c" \
  > $OUT/t_cand.log 2>&1
echo "candidate tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_cand.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_cand.log | cut -c1-200 | head -20
timeout 220 python3 tools/bench_mixed_sweep.py --set tk128 --m 33,48,64,128,256,2048 --out $OUT/sweep > $OUT/sweep.log 2>&1
echo "sweep rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
grep -E "^\| (48|64)x" $OUT/sweep/mixed_sweep.md | grep -v "torch._weight\|small-M" | cut -c1-110
timeout $((590 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_gpu.py \
  tests/test_wo_heuristics.py tests/test_wo_variants_gpu.py > $OUT/t_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_wo.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_wo.log | head -5
