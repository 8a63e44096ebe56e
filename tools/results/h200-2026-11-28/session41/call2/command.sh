# Session 41 call 2 (kind nvidia-h200), EMPTY kernel cache: split-K through a thread block cluster at 2 splits by
# default (wo_set_cluster_reduce: the most splits per cluster, 2). Builds the extension and the 4 bf16 mixed-input kernels
# test_weight_only_gpu takes; `benchmark.py conv --weight-only`; Nsight Compute on five batch-1 1x1 conv shapes
# (probe/prof_conv.py); the GPU tests (test_weight_only_gpu, test_wo_variants_gpu's cluster / row-block / target-shape
# tests, test_conv_gpu -k weight_only).
set -u
SECONDS=0
S=tools/results/h200-2026-11-28/session41
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc41b
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site41 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site41:$PWD
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
N=""; for k in int4_sym_t128x64x64_c1x1x1_cooperative_s0_streamk int4_sym_t256x128x64_c1x1x1_cooperative_s0_streamk \
  int4_zp_t128x64x64_c1x1x1_cooperative_s0_streamk int4_zp_t256x128x64_c1x1x1_cooperative_s0_streamk; do N="$N --name sm90_mixed_bf16_$k"; done
python3 tools/generate_kernels.py --mixed --out /tmp/gen41 --compile --jobs 4 $N 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels.log)"
timeout 80 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_conv_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "geometric" $OUT/cwo/*.md
T="timeout 200 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
( $T tests/test_weight_only_gpu.py > $OUT/tests_wo.log 2>&1; echo "rc=$?" >> $OUT/tests_wo.log ) &
( $T tests/test_wo_variants_gpu.py -k "cluster or row_blocks or list_matches or refused or target" > $OUT/tests_var.log 2>&1; echo "rc=$?" >> $OUT/tests_var.log ) &
( $T tests/test_conv_gpu.py -k weight_only > $OUT/tests_conv.log 2>&1; echo "rc=$?" >> $OUT/tests_conv.log ) &
wait
for f in tests_wo tests_var tests_conv; do echo "$f: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"; done
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
for c in "3136 64 64 2" "3136 256 64 3" "3136 128 256 28" "196 512 1024 1" "49 512 2048 1"; do
  [ $SECONDS -gt 500 ] && break
  f=$OUT/ncu_$(echo $c | tr ' ' '_').txt
  timeout 60 $NCU -k "regex:wo_gemm" --launch-skip 5 --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis --section LaunchStats \
    --section SchedulerStats \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg,gpc__cycles_elapsed.max" \
    python3 $S/probe/prof_conv.py $c > $f 2>&1
  echo "ncu $c rc=$? at ${SECONDS}s"
  grep -E "plan|Duration|DRAM Throughput|L2 Cache Throughput|Issue Slots Busy|Achieved Occupancy|Grid Size|hmma|issue_active|lts__t_bytes|dram__bytes|cycles_active.avg|elapsed.max|stalled" $f \
    | awk '/stalled/ { if ($NF+0 > 0.3) print; next } { print }' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//' | head -30
done
echo "done at ${SECONDS}s"
tar czf /tmp/all41.tgz -C $OUT . && mv /tmp/all41.tgz $OUT/all.tgz
