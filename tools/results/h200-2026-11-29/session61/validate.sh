# Session 61 call 3 (2026-11-29), carry [".whl"], from the repository root:
#   bash tools/results/h200-2026-11-29/session61/validate.sh
# heuristics.PARTIAL (the 256 x 128 c1x2 tile where a caller's unpadded M leaves the last 128-row unit mostly empty),
# checked from an EMPTY kernel cache: tests/test_ops_gpu.py through tools/gpu_suite.py --files (its new test runs the
# rule's calls against float64, Python path and C++ fast path), then probe/oob_rows.py sweep out of sample: rows and
# shapes the rule was not fitted on. Everything but the summary goes into all.tgz.
set -u
SECONDS=0
S=tools/results/h200-2026-11-29/session61
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc61v
python3 tools/gpu_suite.py $OUT --fresh --state /tmp/suite61v --jobs 28 --deadline 330 --files test_ops_gpu 2>&1 | tail -n 12
SETUP=$(python3 tools/device_setup.py $OUT) || exit 1
eval "$SETUP"
python3 $S/probe/oob_rows.py names > $OUT/kernels_named.txt
python3 tools/generate_kernels.py --out /tmp/gen61v --compile --jobs 28 $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) \
  2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels.log
echo "probe kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"
export CUTLASS_GEMM_JIT=0 CUTLASS_GEMM_FAST_PATH=0
timeout $((570 - SECONDS)) python3 $S/probe/oob_rows.py sweep $OUT/oob_valid.json 136,150,390,410,650,665,905,920,170,680 \
  28672x4096,4096x4096,7168x2048,14336x4096,4096x14336,10240x8192,6144x4096,8192x8192 > $OUT/oob_valid.log 2>&1
echo "sweep rc=$? at ${SECONDS}s"
cd $OUT && tar czf /tmp/all61v.tgz . && find . -type f ! -name suite.md ! -name oob_valid.json -delete && mv /tmp/all61v.tgz all.tgz; ls
