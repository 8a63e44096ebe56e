# Session 38 call 8 (2026-11-28), carry ["devtmp/s38"], from the repository root: the three probes rebuilt after their
# shared host code moved into probe/harness.h (session 37's probe_common.h included from its folder instead of a copy),
# to check that the move kept them: same checks (bit-identical / rel err notes) and times within a few % of calls 3-5.
#   cd tools/results/h100-2026-11-28/session38/probe
#   for f in nt xh tx; do nvcc -std=c++17 -O3 -gencode=arch=compute_90a,code=sm_90a -o ../../../../../devtmp/s38/${f}p_re ${f}_probe.cu; done
mkdir -p $OUT && cd devtmp/s38 && for p in ntp_re xhp_re txp_re; do timeout 120 ./$p H100 > $OUT/$p.txt 2>&1; echo "$p rc=$?"; done
