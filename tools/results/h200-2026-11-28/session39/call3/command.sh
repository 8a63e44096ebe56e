# Session 39 call 3 (2026-11-28, kind nvidia-h200, carry [".whl"]), from the repository root, EMPTY kernel cache, on
# the ~9 device minutes left: the torch extension (a new user's first build), the activation-quantization benchmark
# (issue 10's quant rows against the copy rate on this GPU), the first quarter of the quantization-ops GPU tests, and
# the decode GEMV benchmark without the CUTLASS tile rows (JIT builds).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s39c_$RANDOM
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site39 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site39:$PWD
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
timeout 90 python3 tools/benchmark.py quant --out $OUT/q > $OUT/quant.log 2>&1
echo "quant bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
CUTLASS_GEMM_TEST_SHARD=0/4 timeout 80 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py > $OUT/test_quant_ops_0of4.log 2>&1
echo "quant ops tests 0/4 rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/test_quant_ops_0of4.log)" | tee -a $OUT/times.txt
timeout 80 python3 tools/benchmark.py decode --no-tiles --out $OUT/dec > $OUT/dec.log 2>&1
echo "decode bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
cd $OUT && tar czf all.tgz --remove-files * && ls
