# Session 13 call 8 (2026-11-26), carry [".whl", "devtmp/old_src"]: coldstart/bulk.py, 32 SM90 kernels built three
# ways on one machine (split build 16 at a time, commit 059754b's single nvcc runs 16 at a time, split 8 at a time).
set -u
SECONDS=0
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site13 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site13:$PWD
nproc; lscpu | grep -E "^Thread|^Core|^Socket|^Model name" 
timeout 570 python3 tools/results/h100-2026-11-26/session13/coldstart/bulk.py $OUT devtmp/old_src
echo "rc=$? at ${SECONDS}s"; cat $OUT/bulk.json 2>/dev/null | tail -4
