# Session 36 call 1 (2026-11-28), carry [".whl", "devtmp/s35/cgc"], from the repository root:
#   bash tools/results/h100-2026-11-28/session36/call1/command.sh
# The warpgroup-MMA weight-only kernel (runtime/csrc/wo_wgmma.cuh, variants 36-38) against the mixed-input kernel and
# variants 3 / 34 at 48 / 64 rows: the variants' float64 GPU tests first (correctness), then session 33's probe/handoff.py
# (int4 g128 / int8 per channel, bf16 x, alternating, one process), then Nsight Compute on variant 36 at 64 x 8192^2.
# devtmp/s35/cgc: session 35's three bf16 mixed kernels (the layer's picks at 40..64 rows at these shapes).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s36a
rm -rf $CUTLASS_GEMM_CACHE_DIR && mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/s35/cgc/. $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site36 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site36:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension(verbose=True)" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
grep -E "error|C7513" $OUT/extension.log | head -5
timeout 150 python3 -m pytest -m gpu -q -x -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py -k "36 or 37 or 38 or list" \
  > $OUT/t_var.log 2>&1
echo "variant tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_var.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)|Error|assert" $OUT/t_var.log | head -8
timeout 200 python3 tools/results/h100-2026-11-27/session33/probe/handoff.py $OUT/handoff.md --m 48,64 --bits 4,8 \
  --shapes 8192x8192,4096x14336,28672x4096,4096x4096,6144x4096 --vids 3,34,36,37,38 > $OUT/handoff.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
tail -3 $OUT/handoff.log
cat $OUT/handoff.md
cp $OUT/handoff.md $OUT/handoff.txt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for c in v36 v37; do
  [ $SECONDS -gt 500 ] && break
  timeout 45 $NCU -k "regex:wo_wgmma" --launch-skip 5 --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section LaunchStats \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum" \
    python3 tools/results/h100-2026-11-28/session35/probe/prof_wo.py $c > $OUT/ncu_$c.txt 2>&1
  echo "ncu $c rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
  grep -E "Duration|DRAM Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|Grid Size|gmma|issue_active|dram__bytes|stalled" $OUT/ncu_$c.txt \
    | awk '/stalled/ { if ($NF+0 > 0.2) print; next } { print }' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -30
done
