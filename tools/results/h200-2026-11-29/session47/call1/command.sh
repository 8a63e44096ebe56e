# Session 47 call 1 (kind nvidia-h200), empty kernel cache: the per-block int8 GEMM's per-atom mainloop (256 x 128
# cooperative tiles, kernels/cxx/blockwise_int8.hpp Int8AtomPromotionMainloop) against the overlapped 128 x 128
# tiles and the per-token int8 GEMM. Builds the extension, the 7 int8 blockwise candidates ("mn") and the 2 per-token
# int8 kernels the shapes select, then probe/s8_atom.py run (float64 check of every element, bits against the
# selected kernel, alternating timing).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc47a
rm -rf $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site47 .whl/*.whl > $OUT/pip.log 2>&1 || exit 1
export PYTHONPATH=/tmp/site47:$PWD
P=tools/results/h200-2026-11-29/session47/probe/s8_atom.py
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/gpu.txt 2>&1
( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/ext.log 2>&1; \
  echo "extension rc=$? at ${SECONDS}s" >> $OUT/ext.log ) &
N=$(python3 $P names)
( python3 tools/generate_kernels.py --blockwise --out /tmp/gen47b --compile --jobs 8 \
  $(printf -- "--name %s " $(echo "$N" | grep blockwise)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_bw.log ) &
( python3 tools/generate_kernels.py --out /tmp/gen47g --compile --jobs 2 \
  $(printf -- "--name %s " $(echo "$N" | grep -v blockwise)) 2>&1 | tr '\r' '\n' | grep -v "^nvcc:" > $OUT/kernels_gemm.log ) &
wait
echo "built at ${SECONDS}s: $(tail -n 1 $OUT/ext.log) / $(tail -n 1 $OUT/kernels_bw.log) / $(tail -n 1 $OUT/kernels_gemm.log)"
export CUTLASS_GEMM_JIT=0
timeout $((590 - SECONDS)) python3 $P run $OUT/s8_atom.json > $OUT/s8_atom.log 2>&1
echo "probe rc=$? at ${SECONDS}s"
python3 - $OUT/s8_atom.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1])):
    print(f"{r['m']}x{r['n']}x{r['k']} per-token {r['per_token_us']:.1f} us")
    for name, c in r["candidates"].items():
        tag = name.split("_sfamn_")[1]
        print(f"   {tag:55s} {c['us']:8.1f} us  pt/this {c['per_token_over']:.3f}  maxerr {c['max_err_over_max_ref']:.1e}"
              f"  bits==sel {c['bitwise_equal_selected']}  finite {c['finite']}")
PY
tail -n 5 $OUT/s8_atom.log
tar czf /tmp/all47a.tgz -C $OUT . && mv /tmp/all47a.tgz $OUT/all.tgz
