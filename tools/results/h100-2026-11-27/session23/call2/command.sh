# Session 23 call 2 (2026-11-27), carry ["devtmp/qt23"] (built on the CPU machine from session23/qt/qt23.cu:
# nvcc -std=c++17 -O3 -diag-suppress 128 -gencode=arch=compute_90a,code=sm_90a qt23.cu -o devtmp/qt23).
# Dynamic per-tensor quantization beyond 8 MiB: every output byte of the bulk-copy kernel against the library's, then
# the phase breakdown of the library's cooperative kernel and the bulk kernel settings, bf16 -> fp8.
set -u
SECONDS=0
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm --format=csv > $OUT/gpu.txt
timeout 400 ./devtmp/qt23 > $OUT/qt23.log 2>&1; echo "qt23 rc=$? at ${SECONDS}s"
grep -E "DIFFERENT|BYTE|copy bandwidth" $OUT/qt23.log; sed -n '/copy bandwidth/,$p' $OUT/qt23.log
