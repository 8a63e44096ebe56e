# Session 47 call 2 (kind nvidia-h200), EMPTY kernel cache: the per-block int8 op with its new selection (blockwise
# generator 9: SELECTION_S8's 256 x 128 per-atom row from 512 rows where ceil(M/256) * ceil(N/128) >= 128). Builds the
# extension and the kernels the GPU tests name (tests/test_blockint8_sm90_gpu.py, tests/test_pdl_blockwise_gpu.py
# print them), the probe's and the per-token int8 GEMMs of tools/bench_blockint8.py's shapes; runs those two test files
# and tests/test_blockint8_gpu.py; then probe/s8_atom.py at narrow N (int8: the 128-tile rule; fp8: the same question
# for its 256 x 128 row, which does not look at N).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc47b
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site47 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site47:$PWD
P=tools/results/h200-2026-11-29/session47/probe/s8_atom.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
BW="$( (cd tests && python3 test_blockint8_sm90_gpu.py && python3 test_pdl_blockwise_gpu.py) | sort -u;
       echo sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl)"
echo "$BW" | sort -u > $OUT/kernels_named.txt
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen47c --compile --jobs 14 \
  $(printf -- "--name %s " $(sort -u $OUT/kernels_named.txt)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen47d --compile --jobs 2 \
  --name sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 2>&1 \
  | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait
echo "built at ${SECONDS}s ($(wc -l < $OUT/kernels_named.txt) blockwise): $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels_bw.log) / $(tail -n 1 $OUT/kernels_gemm.log)"
export CUTLASS_GEMM_JIT=0
T="python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider"
timeout 150 $T tests/test_blockint8_sm90_gpu.py > $OUT/tests_bi8_sm90.log 2>&1; echo "rc=$?" >> $OUT/tests_bi8_sm90.log
echo "bi8 sm90 tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_bi8_sm90.log | tr '\n' ' ')"
timeout 150 $T tests/test_pdl_blockwise_gpu.py > $OUT/tests_pdl_blockwise.log 2>&1; echo "rc=$?" >> $OUT/tests_pdl_blockwise.log
echo "pdl blockwise tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_pdl_blockwise.log | tr '\n' ' ')"
timeout 100 $T tests/test_blockint8_gpu.py > $OUT/tests_bi8.log 2>&1; echo "rc=$?" >> $OUT/tests_bi8.log
echo "bi8 (extension) tests at ${SECONDS}s: $(tail -n 2 $OUT/tests_bi8.log | tr '\n' ' ')"
grep -h "^FAILED\|^ERROR" $OUT/tests_*.log | head -10
S8="sm90_blockwise_s8_bf16_sfamn_t128x128x128_c2x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_s8_bf16_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm"
F8="sm90_blockwise_e4m3_bf16_sfamn_t128x128x128_c1x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_e4m3_bf16_sfamn_t256x128x128_c1x2x1_cooperative_persistent_s0_atm"
CG_PROBE_CANDS=$S8 CG_PROBE_SHAPES=384x8192x8192,512x4096x4096,768x4096x4096,1024x4096x4096,2048x2048x4096,1024x2048x8192,4096x1024x4096,4096x896x4096 \
  timeout $(( (590 - SECONDS) * 2 / 3 )) python3 $P run $OUT/s8_narrow.json > $OUT/s8_narrow.log 2>&1
echo "s8 sweep rc=$? at ${SECONDS}s"
CG_PROBE_AB=e4m3 CG_PROBE_CANDS=$F8 CG_PROBE_SHAPES=2048x1024x4096,4096x1024x4096,2048x2048x4096,1536x2048x7168 \
  timeout $((592 - SECONDS)) python3 $P run $OUT/f8_narrow.json > $OUT/f8_narrow.log 2>&1
echo "fp8 sweep rc=$? at ${SECONDS}s"
python3 - $OUT/s8_narrow.json $OUT/f8_narrow.json <<'PY'
import json, sys
for f in sys.argv[1:]:
    try:
        rows = json.load(open(f))
    except Exception as e:
        print(f, e); continue
    for r in rows:
        sel = r["selected"].split("_sfamn_")[1]
        print(f"{r['m']}x{r['n']}x{r['k']} selected {sel} per-token {r['per_token_us']:.1f}")
        for name, c in r["candidates"].items():
            print(f"   {name.split('_sfamn_')[1]:55s} {c['us']:8.1f} us  maxerr {c['max_err_over_max_ref']:.1e}"
                  f"  fro {c['rel_fro']:.1e}  bits==sel {c['bitwise_equal_selected']}  finite {c['finite']}")
PY
tar czf /tmp/all47b.tgz -C $OUT . && mv /tmp/all47b.tgz $OUT/all.tgz
