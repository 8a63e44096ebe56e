# Session 35 call 1 (2026-11-28), carry [".whl", "devtmp/s35/cgc"], from the repository root:
#   bash tools/results/h100-2026-11-28/session35/call1/command.sh
# (Ran with a copy of session 33's probe/handoff.py that differed only in its docstring and argument defaults; every
# argument is given explicitly below, so session 33's file runs the same.)
# The 3 / 4 m-tile CTA shapes of the small-M mma kernel (ids 29-31: mt4 4x2 s3, mt4 2x4 s3, mt4 8x1 s4, unbounded registers, since dropped; 32: mt3 4x2 s3) against the mixed-input kernel at 40..64 rows:
# probe/handoff.py at six shapes (int4 g128 / int8 per channel, bf16 x, alternating, one process); then the variants'
# float64 GPU test file; then Nsight Compute on the mixed kernel and variants 29 / 31 at 64 x 8192^2 (probe/prof_wo.py).
# devtmp/s35/cgc: the three bf16 mixed kernels the layer selects at 40..64 rows at these shapes, built on the
# development machine (generate_kernels.py --mixed --compile --cache-dir devtmp/s35/cgc --name ...).
set -u
SECONDS=0
D=tools/results/h100-2026-11-28/session35
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s35a
rm -rf $CUTLASS_GEMM_CACHE_DIR && mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/s35/cgc/. $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site35 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site35:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout 240 python3 tools/results/h100-2026-11-27/session33/probe/handoff.py $OUT/handoff.md --m 40,48,56,64 --bits 4,8 \
  --shapes 8192x8192,28672x4096,4096x14336,4096x4096,6144x4096,14336x4096 --vids 3,29,30,31,32 --mixed-op > $OUT/handoff.log 2>&1
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
grep -c "building kernel" $OUT/handoff.log; tail -3 $OUT/handoff.log
cat $OUT/handoff.md
cp $OUT/handoff.md $OUT/handoff.txt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for c in mixed v29 v31; do
  [ $SECONDS -gt 480 ] && break
  if [ $c = mixed ]; then KR="regex:device_kernel|Gemm"; else KR="regex:wo_gemm"; fi
  timeout 60 $NCU -k "$KR" --launch-skip 5 --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed" \
    python3 $D/probe/prof_wo.py $c > $OUT/ncu_$c.txt 2>&1
  echo "ncu $c rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
  grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Memory Throughput|Issue Slots Busy|Achieved Occupancy|Registers Per|Grid Size|hmma|gmma|issue_active|lts__|dram__bytes|stalled" $OUT/ncu_$c.txt \
    | awk '/stalled/ { if ($NF+0 > 0.2) print; next } { print }' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -40
done
timeout $((585 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_wo_variants_gpu.py -k "29 or 30 or 31 or 32 or list or target or capacity" \
  > $OUT/t_var.log 2>&1
echo "variant tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_var.log)" | tee -a $OUT/times.txt
grep -E "^(FAILED|ERROR)" $OUT/t_var.log | head -5
