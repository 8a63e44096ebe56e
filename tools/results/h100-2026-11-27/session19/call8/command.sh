# Session 19 call 8 (2026-11-27), carry [".whl"]: warp stall reasons (Nsight Compute, every
# smsp__average_warps_issue_stalled_*_per_issue_active metric) of the committed direct kernel v14 (x1 2x2 t1024) at
# 1 x 8192 x 8192 int4 g128, against the int8 per-channel mma kernel v1 (81% of the floor) and the int4 stream v8.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19f
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site19 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site19:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
P=tools/results/h100-2026-11-27/session19/wo/one_call.py
for spec in "4 14 wo_direct" "8 1 wo_gemm" "4 8 wo_stream"; do
  set -- $spec
  timeout 150 /usr/local/cuda/bin/ncu -k regex:$3 --launch-skip 9 --launch-count 1 --section SpeedOfLight --section Occupancy \
    --metrics "regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,smsp__cycles_active.avg,sm__warps_active.avg.per_cycle_active" \
    python3 $P $1 $2 1 8192 8192 > $OUT/stall_b$1_v$2.txt 2>&1
  echo "ncu b$1 v$2 rc=$? at ${SECONDS}s"
  grep -E "Duration|DRAM Throughput|stalled|inst_executed|warps_active" $OUT/stall_b$1_v$2.txt | awk '$NF+0 > 0.05 || /Duration|DRAM|inst_exec|warps_active/' | sed 's/smsp__average_warps_issue_stalled_//; s/_per_issue_active.ratio//'
done
