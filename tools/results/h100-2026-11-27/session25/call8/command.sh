# Session 25 call 8 (2026-11-27), carry [".whl"]: the overlapped mainloop (M <= 1024) with the same early barrier poll
# as call 6's per-atom one (and the k-tile's scales read after its wgmmas are issued) against it without (an
# experiment-only mainloop "overlap_late", names ending _ovk, since removed), in one process:
# probe/probe_mainloops.py, 15 rounds; the candidate-kernel GPU test of the new overlapped kernels (same bits as
# CUTLASS's mainloop). EMPTY cache: the extension (background) and 10 kernels.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s25h
rm -rf $CUTLASS_GEMM_CACHE_DIR; mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site25 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site25:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,serial --format=csv > $OUT/gpu.txt 2>&1
(python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1; echo "extension rc=$?" >> $OUT/extension.log) &
EXT=$!
P=sm90_blockwise_e4m3_bf16
PP=t64x128x128_c1x1x1_pingpong_persistent_s0
CO=t128x128x128_c1x1x1_cooperative_persistent_s0
C2=t128x128x128_c1x2x1_cooperative_persistent_s0
ARGS=""
for n in sfak_${PP}_ovl sfak_${PP}_ovk sfak_${PP} sfamn_${CO} sfamn_${CO}_ovl sfamn_${CO}_ovk sfak_${CO}_ovl sfak_${CO} sfak_${C2}_ovl sfak_${C2}; do ARGS="$ARGS --name ${P}_$n"; done
timeout 250 python3 tools/generate_kernels.py --blockwise --out /tmp/gen25 --compile --jobs 10 $ARGS > $OUT/kernels.log 2>&1
echo "kernels rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/kernels.log)"; grep -E "FAILED|error" $OUT/kernels.log | head -5
wait $EXT; echo "extension done at ${SECONDS}s: $(tail -n 1 $OUT/extension.log)"
timeout 100 python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_blockwise_gpu.py -k "candidate and ovl and not t256" > $OUT/tests_ovl.log 2>&1
echo "ovl tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/tests_ovl.log)"
grep -E "FAILED|ERROR|Error|assert" $OUT/tests_ovl.log | head -20
PR=tools/results/h100-2026-11-27/session25/probe/probe_mainloops.py
timeout 150 python3 $PR 15 64x7168x2048,128x7168x2048 ${P}_sfak_${PP}_ovl ${P}_sfak_${PP}_ovk > $OUT/probe_pp.md 2>&1
echo "probe pp rc=$? at ${SECONDS}s"; cat $OUT/probe_pp.md
timeout $((585 - SECONDS)) python3 $PR 15 256x7168x2048,512x7168x2048,1024x7168x2048,512x8192x8192 ${P}_sfamn_${CO}_ovl ${P}_sfamn_${CO}_ovk > $OUT/probe_co.md 2>&1
echo "probe co rc=$? at ${SECONDS}s"; cat $OUT/probe_co.md
cd $OUT && tar czf all.tgz --remove-files * ; ls
