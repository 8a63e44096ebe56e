# Session 54 call 2 (kind nvidia-h200), EMPTY kernel cache (a fresh machine), carry [".whl"]: the extension built, then
#   probe/handoff.py: every ResNet-50 k x k / strided conv at batch 1-16, each convolution variant against
#     dequantize + cuDNN and cuDNN (the hand-off bound and the variant rule of wo_heuristics);
#   tests/test_conv_wo_gpu.py (the ResNet test now against the dequantized-weight model; the route test);
#   tests/test_cublaslt_gpu.py (with the cp312 nvmath wheel; not run since session 51).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc54b
rm -rf $CUTLASS_GEMM_CACHE_DIR
for w in .whl/*.whl; do python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site54 $w > /dev/null 2>&1 || echo "skipped $w"; done
export PYTHONPATH=/tmp/site54:$PWD
L=/tmp/L54b; rm -rf $L; mkdir -p $L
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $L/ext.log 2>&1
echo "extension rc=$? at ${SECONDS}s"
timeout 330 python3 tools/results/h200-2026-11-29/session54/probe/handoff.py $OUT/handoff > $L/handoff.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
T="python3 -m pytest -m gpu -q -s -rfEs -p no:cacheprovider"
R=$((585 - SECONDS))
(timeout $R $T tests/test_conv_wo_gpu.py > $L/conv_wo.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/conv_wo.log) &
(timeout $R $T tests/test_cublaslt_gpu.py > $L/cublaslt.log 2>&1; echo "rc=$? at ${SECONDS}s" >> $L/cublaslt.log) &
wait
for f in conv_wo cublaslt; do echo "$f: $(grep -E '[0-9]+ (passed|failed|error)' $L/$f.log | tail -n 1) $(tail -n 1 $L/$f.log)"; done
grep -h "rel. error" $L/conv_wo.log | cut -c1-220
grep -h "^FAILED\|^ERROR" $L/*.log | head -20
tail -n 70 $L/handoff.log | grep "^|" | cut -c1-200
tar czf $OUT/logs.tgz -C $L .
