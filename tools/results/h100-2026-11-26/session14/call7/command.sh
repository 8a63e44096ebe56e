# Session 14 call 7 (2026-11-26), carry [".whl", "devtmp/cache_s14"]: narrow layers (N < 4096) back on the 128x128
# persistent tile at every M and on the small-M kernel up to 64 rows (kernels/mixed_input.SMALL_N,
# ops/wo_heuristics.MIXED_FROM_M_MIN_N) after call 6 measured the batch-1 ResNet-50 1x1 convs slower on the LLM-shape
# SELECTION (geometric mean 0.85x cuDNN fp16 against session 8's 1.06x). benchmark.py conv --weight-only again, the
# weight-only and weight-only conv GPU tests (36 mixed kernels: 33 carried, the int4 128x128 f16/zp ones new).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14g
mkdir -p $CUTLASS_GEMM_CACHE_DIR && cp -r devtmp/cache_s14/sm90 $CUTLASS_GEMM_CACHE_DIR/
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site14 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site14:$PWD
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension at ${SECONDS}s" >> $OUT/extension.log ) &
python3 tools/generate_kernels.py --mixed --out /tmp/gen14 --compile --jobs 8 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_mixed.log
echo "kernels at ${SECONDS}s: $(tail -n 1 $OUT/kernels_mixed.log)"
wait; tail -n 1 $OUT/extension.log
timeout 200 python3 tools/benchmark.py conv --weight-only --out $OUT/cwo > $OUT/bench_conv_wo.log 2>&1
echo "bench rc=$? at ${SECONDS}s"; grep "geometric" $OUT/cwo/*.md
timeout 150 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_weight_only_mixed_gpu.py tests/test_weight_only_gpu.py \
  > $OUT/tests_wo.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_wo.log)"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_conv_gpu.py -k weight_only > $OUT/tests_conv_wo.log 2>&1
echo "conv wo tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_conv_wo.log)"
tar czf /tmp/all7.tgz -C $OUT . && mv /tmp/all7.tgz $OUT/all.tgz
