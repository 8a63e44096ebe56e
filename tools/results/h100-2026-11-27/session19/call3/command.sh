# Session 19 call 3 (2026-11-27), carry [".whl"]: Nsight Compute of the weight-only kernels at 1 x 8192 x 8192 (bf16 x):
# int4 g128 direct v15 (x1 4x4 u1), stream v8 (the table's), int8 per channel mma v1 (81% of the floor), int4 v1;
# and the SASS instruction counts of the direct and stream kernels (cuobjdump of the extension).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s19
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site19 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site19:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
P=tools/results/h100-2026-11-27/session19/wo/one_call.py
for spec in "4 15 wo_direct" "4 8 wo_stream" "8 1 wo_gemm" "4 1 wo_gemm"; do
  set -- $spec
  timeout 120 $NCU -k regex:$3 --launch-skip 9 --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section LaunchStats \
    --section InstructionStats python3 $P $1 $2 1 8192 8192 > $OUT/ncu_b$1_v$2.txt 2>&1
  echo "ncu b$1 v$2 rc=$? at ${SECONDS}s"
  grep -E "Duration|DRAM Throughput|Executed Ipc A|Issue Slots Busy|Achieved Occupancy|Registers Per|Warp Cycles Per Issued|Executed Instructions  |Stall|No Eligible|Active Warps Per" $OUT/ncu_b$1_v$2.txt | head -20
done
SO=$(ls $CUTLASS_GEMM_CACHE_DIR/ext/*/*.so | head -1)
echo "so: $SO"
cuobjdump -sass $SO > /tmp/ext.sass 2>/dev/null; echo "sass lines $(wc -l < /tmp/ext.sass)"
python3 - <<'PY' > $OUT/sass_counts.txt
import re
t = open("/tmp/ext.sass").read()
for m in re.finditer(r"Function : (\S+)\n(.*?)(?=\n\s*Function : |\Z)", t, re.S):
    name, body = m.group(1), m.group(2)
    if "wo_direct_kernelI13__nv_bfloat16Li4ELb0ELi1ELi4ELi4ELi1E" in name or "wo_stream_kernelI13__nv_bfloat16Li4ELb0ELi8ELi8ELi1ELi4E" in name:
        ins = re.findall(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?P\d+\s+)?([A-Z][A-Z0-9_.]+)", body)
        print(name, len(ins))
        from collections import Counter
        for k, v in Counter(i.split(".")[0] for i in ins).most_common(30): print("  ", k, v)
        print(body[:200000], file=open("/tmp/" + ("direct" if "direct" in name else "stream") + ".sass", "w"))
PY
cp /tmp/direct.sass /tmp/stream.sass $OUT/ 2>/dev/null
cat $OUT/sass_counts.txt | head -70
