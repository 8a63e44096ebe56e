# Session 16 call 2 (2026-11-26), carry [".whl", "devtmp/s16"]: (1) the quant harness's second round
# (session16/qt/qt16b.cu, built on the CPU machine as its header says, as devtmp/s16/qt16b): the asymmetric mode
# saturating only where the range needs it, byte checks of every mode against d392b48, head vs new timings;
# meanwhile the extension is built (EMPTY cache); (2) issue 12's decode: the weight-only small-M kernel's variants x
# split counts at M = 1 and 16 (session16/wo/probe_wo.py) and Nsight Compute profiles of the layer's M = 1 and M = 16
# kernels at 8192 x 8192; (3) the quant-op GPU tests.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s16_c2
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site16 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site16:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $OUT/gpu.txt
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/extension.log ) &
timeout 240 ./devtmp/s16/qt16b > $OUT/qt16b.log 2>&1; echo "qt16b rc=$? at ${SECONDS}s"
wait
tail -n 1 $OUT/extension.log
P=tools/results/h100-2026-11-26/session16/wo/probe_wo.py
timeout 200 python3 $P time $OUT/wo_probe.md > $OUT/wo_probe.log 2>&1; echo "wo probe rc=$? at ${SECONDS}s"
NCU=$(which ncu || echo /usr/local/cuda/bin/ncu)
for m in 1 16; do
  timeout 60 $NCU --set full --kernel-name regex:"wo_" --launch-skip 4 --launch-count 1 -o $OUT/wprof_m$m python3 $P profile $m 8192 8192 > $OUT/wprof_m$m.log 2>&1
  echo "ncu m=$m rc=$? at ${SECONDS}s"
  $NCU --import $OUT/wprof_m$m.ncu-rep --page details > $OUT/wprof_m${m}_details.txt 2>&1
done
timeout $((580 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_quant_ops_gpu.py > $OUT/tests.log 2>&1
echo "tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests.log)"
cd $OUT && tar czf all.tgz *.log *.md *.txt 2>/dev/null; ls
