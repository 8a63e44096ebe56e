# Session 19 call 4 (2026-11-27), carry [".whl"]: the direct kernels with a residency target per variant (t512 / t768 /
# t1024 resident threads per SM: 128 / 80 / 64 registers) after call 3's Nsight Compute (16 warps per SM, 8.6 cycles per
# issued instruction). The extension built on an EMPTY cache, probe_direct.py, Nsight Compute of the t1024 direct kernel
# at 1 x 8192 x 8192 int4, then every weight-only variant against float64 (tests/test_wo_variants_gpu.py).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19b
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site19 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site19:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 200 python3 tools/results/h100-2026-11-27/session19/wo/probe_direct.py $OUT/probe_direct.md > $OUT/probe_direct.log 2>&1
echo "probe rc=$? at ${SECONDS}s"; tail -n 3 $OUT/probe_direct.log
grep -E "best" $OUT/probe_direct.md
timeout 60 /usr/local/cuda/bin/ncu -k regex:wo_direct --launch-skip 9 --launch-count 1 --section SpeedOfLight --section Occupancy \
  --section WarpStateStats --section SchedulerStats --section LaunchStats --section InstructionStats \
  python3 tools/results/h100-2026-11-27/session19/wo/one_call.py 4 15 1 8192 8192 > $OUT/ncu_b4_v15.txt 2>&1
grep -E "Duration|DRAM Throughput|Warp Cycles Per Issued|Executed Instructions  |Achieved Active Warps|Registers Per" $OUT/ncu_b4_v15.txt
timeout $((570 - SECONDS)) python3 -m pytest -q -m gpu -x tests/test_wo_variants_gpu.py > $OUT/tests_wo.log 2>&1
echo "tests rc=$? at ${SECONDS}s"; tail -n 2 $OUT/tests_wo.log
