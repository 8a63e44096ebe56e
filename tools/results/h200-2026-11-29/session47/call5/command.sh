# Session 47 call 5 (kind nvidia-h200), empty kernel cache: the int8 per-atom and overlapped tiles with a row-major
# ("k") scale_a, the layout the op keeps below K = 4096 (call 4's benchmark row at 4096 x 7168 x 2048 ran that kernel;
# calls 1-3 timed "mn" only). probe/s8_atom.py with CG_PROBE_SFA=k.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc47e
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site47 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site47:$PWD
P=tools/results/h200-2026-11-29/session47/probe/s8_atom.py
S8="sm90_blockwise_s8_bf16_sfak_t128x128x128_c2x1x1_cooperative_persistent_s0_ovl,sm90_blockwise_s8_bf16_sfak_t256x128x128_c1x2x1_cooperative_persistent_s0_atm"
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen47i --compile --jobs 4 \
  $(printf -- "--name %s " $(echo $S8 | tr ',' ' ')) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen47j --compile --jobs 2 \
  --name sm90_int8_bf16_scaled_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 2>&1 \
  | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/kernels_bw.log) / $(tail -n 1 $OUT/kernels_gemm.log)"
export CUTLASS_GEMM_JIT=0
CG_PROBE_SFA=k CG_PROBE_CANDS=$S8 CG_PROBE_SHAPES=4096x7168x2048,2048x7168x2048,2048x8192x2048,4096x4096x3072 \
  timeout $((300 - SECONDS)) python3 $P run $OUT/s8_k.json > $OUT/s8_k.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
python3 - $OUT/s8_k.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['m']}x{r['n']}x{r['k']} selected {r['selected'].split('_sfak_')[1]} per-token {r['per_token_us']:.1f}")
    for name, c in r["candidates"].items():
        print(f"   {name.split('_sfak_')[1]:55s} {c['us']:8.1f} us  pt/this {c['per_token_over']:.3f}  maxerr "
              f"{c['max_err_over_max_ref']:.1e}  bits==sel {c['bitwise_equal_selected']}  finite {c['finite']}")
PY
tar czf /tmp/all47e.tgz -C $OUT . && mv /tmp/all47e.tgz $OUT/all.tgz
