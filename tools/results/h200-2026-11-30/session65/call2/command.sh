# Session 65 call 2 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, on call 1's machine while still warm (kernel cache
# /tmp/cgc65a kept; one GPU used). Three attempts: the first two failed before measuring (the probe's repository path;
# then no nvidia-cutlass in the process: the carried wheels are installed by tools/device_setup.py, which this form runs).
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc65a CUDA_VISIBLE_DEVICES=0; SETUP=$(python3 tools/device_setup.py $OUT) || exit 1; eval "$SETUP"; timeout 520 python3 tools/results/h200-2026-11-30/session65/probe/compiled_layers.py $OUT/compiled_layers.json 8192 8192 1,16,200,2048 > $OUT/compiled_layers.log 2>&1; echo rc=$?
