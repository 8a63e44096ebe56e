# Session 47 call 3 (kind nvidia-h200), EMPTY kernel cache: the 256-row tile rule of both blockwise families
# (kernels/blockwise.WIDE_MIN_TILES; fp8 too since call 2's sweep). Builds the extension and the kernels the GPU tests
# name (tests/test_blockwise_gpu.py, tests/test_pdl_blockwise_gpu.py print them; the int8 activation kernels of
# tests/test_blockint8_gpu.py at 200 rows; anything else those tests need is built on first use: JIT on), runs the
# three files, then probe/s8_atom.py at narrow N (the int8 sweep call 2 could not finish: per-token kernels missing).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc47c
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site47 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site47:$PWD
P=tools/results/h200-2026-11-29/session47/probe/s8_atom.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
( (cd tests && python3 test_blockwise_gpu.py && python3 test_pdl_blockwise_gpu.py);
  python3 -c "
from cutlass_gemm.kernels.blockwise import select_config
for act in ('none', 'relu', 'relu6', 'gelu_tanh', 'silu'):
    print(select_config('bf16', 200, act, 'k', 's8', 264).name)
print(select_config('bf16', 2048, 'none', 'mn', 's8', 2048).replace(tile=(128, 128, 128), cluster=(2, 1, 1), mainloop='overlap').name)" ) \
  | sort -u > $OUT/kernels_named.txt
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen47e --compile --jobs 14 \
  $(printf -- "--name %s " $(cat $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen47f --compile --jobs 2 \
  --name sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 \
  --name sm90_int8_bf16_scaled_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8 2>&1 \
  | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) blockwise): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels_bw.log) / $(tail -n 1 $OUT/kernels_gemm.log)"
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout 170 $T tests/test_blockwise_gpu.py > $OUT/tests_blockwise.log 2>&1; echo "rc=$?" >> $OUT/tests_blockwise.log
echo "blockwise tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_blockwise.log | tr '\n' ' ')"
timeout 90 $T tests/test_pdl_blockwise_gpu.py > $OUT/tests_pdl_blockwise.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl_blockwise.log
echo "pdl blockwise tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_pdl_blockwise.log | tr '\n' ' ')"
timeout 90 $T tests/test_blockint8_gpu.py > $OUT/tests_bi8.log 2>&1; echo "rc=$?" >> $OUT/tests_bi8.log
echo "bi8 (extension) tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_bi8.log | tr '\n' ' ')"
grep -h "^FAILED\|^ERROR" $OUT/tests_*.log | head -10
grep -h "building\|JIT\|first use" $OUT/tests_*.log | head -5
export CUTLASS_GEMM_JIT=0
S8="sm90_blockwise_s8_bf16_sfamn_t128x128x128_c2x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_s8_bf16_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm"
CG_PROBE_CANDS=$S8 CG_PROBE_SHAPES=512x4096x4096,768x4096x4096,1024x4096x4096,2048x2048x4096,1024x2048x8192,4096x1024x4096,4096x896x4096 \
  timeout $((590 - SECONDS)) python3 $P run $OUT/s8_narrow.json > $OUT/s8_narrow.log 2>&1
echo "s8 sweep rc=$? at ${SECONDS}s"
python3 - $OUT/s8_narrow.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['m']}x{r['n']}x{r['k']} selected {r['selected'].split('_sfamn_')[1]} per-token {r['per_token_us']:.1f}")
    for name, c in r["candidates"].items():
        print(f"   {name.split('_sfamn_')[1]:55s} {c['us']:8.1f} us  pt/this {c['per_token_over']:.3f}  maxerr "
              f"{c['max_err_over_max_ref']:.1e}  bits==sel {c['bitwise_equal_selected']}  finite {c['finite']}")
PY
tar czf /tmp/all47c.tgz -C $OUT . && mv /tmp/all47c.tgz $OUT/all.tgz
