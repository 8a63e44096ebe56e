# Session 48 call 2 (kind nvidia-h200), EMPTY kernel cache: the fp8 side of blockwise generator 10 (the promotion
# mainloops as two loops and two policies). Builds the extension and every kernel tests/test_blockwise_gpu.py and
# tests/test_pdl_blockwise_gpu.py name, runs both files with JIT off; then the session 47 probe at 192..320 rows with
# wide N for the int8 tiles with a row-major ("k") scale_a, the layout the op keeps below 512 rows (call 1 timed "mn").
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc48b
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site48 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site48:$PWD
P=tools/results/h200-2026-11-29/session47/probe/s8_atom.py
export CG_PROBE_SFA=k
export CG_PROBE_SHAPES=192x28672x4096,256x28672x4096,256x14336x4096,320x14336x4096,320x8192x8192,256x16384x8192
export CG_PROBE_CANDS=sm90_blockwise_s8_bf16_sfak_t128x128x128_c2x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_s8_bf16_sfak_t256x128x128_c1x2x1_cooperative_persistent_s0_atm
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_blockwise_gpu.py && python3 test_pdl_blockwise_gpu.py);
  echo $CG_PROBE_CANDS | tr ',' '\n' ) | sort -u > $OUT/kernels_named.txt
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen48c --compile --jobs 13 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen48d --compile --jobs 2 \
  $(printf -- "--name %s " $(python3 $P names | grep -v blockwise)) 2>&1 \
  | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) blockwise): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels_bw.log) / $(tail -n 1 $OUT/kernels_gemm.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
for f in test_blockwise_gpu test_pdl_blockwise_gpu; do
  timeout 200 $T tests/$f.py > $OUT/$f.log 2>&1; echo "rc=$?" >> $OUT/$f.log
  echo "$f at ${SECONDS}s: $(tail -n 2 $OUT/$f.log | tr '\n' ' ')"
done
grep -h "^FAILED\|^ERROR" $OUT/test_*.log | head -10
timeout $((590 - SECONDS)) python3 $P run $OUT/s8_mid_k.json > $OUT/s8_mid_k.log 2>&1
echo "s8 probe rc=$? at ${SECONDS}s"
python3 - $OUT/s8_mid_k.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['m']}x{r['n']}x{r['k']} selected {r['selected'].split('_sfa')[1]} per-token {r['per_token_us']:.1f}")
    for name, c in r["candidates"].items():
        print(f"   {name.split('_sfa')[1]:55s} {c['us']:8.1f} us  pt/this {c['per_token_over']:.3f}  maxerr "
              f"{c['max_err_over_max_ref']:.1e}  bits==sel {c['bitwise_equal_selected']}  finite {c['finite']}")
PY
tar czf /tmp/all48b.tgz -C $OUT . && mv /tmp/all48b.tgz $OUT/all.tgz
