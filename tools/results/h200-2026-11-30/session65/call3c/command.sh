# Session 65 call 3c (2026-11-30), carry [".whl"], kind nvidia-h200-x2, on the same warm machine: the eight shards of
# test_weight_only_mixed_gpu.py call 3b's scheduler did not start (its time estimate per shard, 126 s, against 140 s
# left), run by pytest directly, four per GPU at once. mixed_9.log did not come back (the device tool's file count);
# its line is in the call's output: "shard 9/12: 13 passed, 151 deselected in 83.44s".
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc65a; SETUP=$(python3 tools/device_setup.py $OUT) || exit 1; eval "$SETUP"; for i in 2 3 4 5 6 7 8 9; do CUDA_VISIBLE_DEVICES=$((i % 2)) CUTLASS_GEMM_TEST_SHARD=$i/12 timeout 200 python3 -m pytest -q -m gpu tests/test_weight_only_mixed_gpu.py -p no:cacheprovider > $OUT/mixed_$i.log 2>&1 & done; wait; for i in 2 3 4 5 6 7 8 9; do echo "shard $i/12: $(tail -n 1 $OUT/mixed_$i.log)"; done
