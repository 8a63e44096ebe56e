# Session 32 call 6 (2026-11-27), from the repository root (standalone harness, no kernel cache):
#   bash tools/results/h100-2026-11-27/session32/call6/command.sh
# Session 31's wgmma probe (probe/wgmma_probe.cu there: variant 22 with its products as wgmma m64n16k16, each tile's
# batch retired before the next tile is dequantized) plus a pipelined form (probe/wgmma_pipe.patch): tile j's wgmmas
# run while tile j + 1 is dequantized into a second register set, weights loaded two tiles ahead; ptxas reports no
# serialization for it. Checked against variant 22 and the serialized form, timed in alternation with both and the
# M = 1 kernel.
set -u
SECONDS=0
P31=tools/results/h100-2026-11-27/session31/probe
mkdir -p /tmp/wg32 && cp $P31/wgmma_probe.cu /tmp/wg32/ && (cd /tmp/wg32 && patch -s -p1 < $OLDPWD/tools/results/h100-2026-11-27/session32/probe/wgmma_pipe.patch) || exit 3
nvcc -std=c++17 -O3 -Xptxas -v -gencode=arch=compute_90a,code=sm_90a -I $P31 -o /tmp/wg32/wgp /tmp/wg32/wgmma_probe.cu > $OUT/build.log 2>&1
echo "build rc=$? at ${SECONDS}s" | tee $OUT/times.txt
grep -E "C75" $OUT/build.log
timeout 120 /tmp/wg32/wgp 2>&1 | tee $OUT/wgmma_pipe.log
echo "probe rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
