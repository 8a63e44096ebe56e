# Session 32 call 4 (2026-11-27), from the repository root (standalone harness, no kernel cache):
#   bash tools/results/h100-2026-11-27/session32/call4/command.sh
# The direct decode kernels with an L2 prefetch of the warp's tiles pf_ahead ahead in their main loop (probe/pf_csrc,
# "new") against the committed kernels ("old"), same variant and plan, in one binary (probe/ab_*.cu, AB_SET=pf), for
# pf_ahead 2, 4, 8: call 3's profile showed the int8 16-row kernel stalled on its global loads (long scoreboard) at
# 15 warps per SM. Outputs compared bit for bit, timed in alternation.
set -u
SECONDS=0
P=tools/results/h100-2026-11-27/session32/probe
# (as run, probe/pf_csrc/ was a folder of header copies; probe/pf_csrc.patch rebuilds it from the committed headers)
rm -rf /tmp/pf_csrc && mkdir -p /tmp/pf_csrc && cp cutlass_gemm/runtime/csrc/{wo_*.cuh,wo_spread.h,pdl.cuh} /tmp/pf_csrc/ && (cd /tmp/pf_csrc && patch -s -p1 < $OLDPWD/$P/pf_csrc.patch) || exit 3
NV="nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90"
mkdir -p /tmp/ab32pf
($NV -DAB_PF -I /tmp/pf_csrc -c $P/ab_tu.cu -o /tmp/ab32pf/new.o > $OUT/build_new.log 2>&1) &
($NV -DAB_OLD -I cutlass_gemm/runtime/csrc -c $P/ab_tu.cu -o /tmp/ab32pf/old.o > $OUT/build_old.log 2>&1) &
wait
$NV $P/ab_main.cu /tmp/ab32pf/new.o /tmp/ab32pf/old.o -o /tmp/ab32pf/ab > $OUT/build_link.log 2>&1
echo "build rc=$? at ${SECONDS}s" | tee $OUT/times.txt
for d in 2 4 8; do
  AB_SET=pf PF_AHEAD=$d timeout 100 /tmp/ab32pf/ab > $OUT/pf_$d.md 2>&1
  echo "pf_ahead $d rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
done
for d in 2 4 8; do echo "== pf_ahead $d (old: committed, new: with the prefetch)"; cat $OUT/pf_$d.md; done
