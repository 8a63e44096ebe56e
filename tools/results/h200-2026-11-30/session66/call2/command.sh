# Session 66 call 2 (2026-11-30), carry [".whl"], kind nvidia-h200-x2, on call 1's machine while still warm (kernel
# cache /tmp/cgc66a kept). (1) Whether an AOTInductor CUDA package loads at all on this torch (call 1's GPU AOTI test
# crashed in aoti_load_package): a plain nn.Linear package and the layers' package, each in its own process, on GPU 1;
# (2) probe/compiled_host.py on GPU 0: the host time of compiled layers and the symbolic-batch device time.
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc66a; SETUP=$(python3 tools/device_setup.py $OUT) || exit 1; eval "$SETUP"
P=tools/results/h200-2026-11-30/session66/probe
( for w in plain layers; do CUDA_VISIBLE_DEVICES=1 timeout 200 python3 $P/aoti_child.py $w $OUT > $OUT/aoti_$w.log 2>&1; echo "aoti $w rc=$?" >> $OUT/aoti.txt; done ) &
CUDA_VISIBLE_DEVICES=0 timeout 480 python3 $P/compiled_host.py $OUT/host all > $OUT/compiled_host.log 2>&1; echo probe rc=$?
wait; cat $OUT/aoti.txt; tail -3 $OUT/aoti_plain.log $OUT/aoti_layers.log; grep -v Warn $OUT/compiled_host.log | tail -30 | cut -c1-400
