# Session 55 call 4 (kind nvidia-h200): the same machine as call 3, warm (call 3's extension in /tmp/cgc55c, no SM80
# kernel built yet): tests/test_sm80_on_sm90_gpu.py, whose fixture builds the SM80 family (with sm_90 machine code) in
# parallel first. Sent as one command line through the device tool:
cd . && export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc55c PYTHONPATH=/tmp/site55:$PWD && SECONDS=0 && timeout 430 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_sm80_on_sm90_gpu.py > $OUT/sm80.log 2>&1; echo "rc=$? at ${SECONDS}s"; tail -n 5 $OUT/sm80.log; (cd $CUTLASS_GEMM_CACHE_DIR && ls sm80*/*.so 2>/dev/null | wc -l)
