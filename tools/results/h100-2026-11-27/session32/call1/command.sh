# Session 32 call 1 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache:
#   bash tools/results/h100-2026-11-27/session32/call1/command.sh
# Weight-only int8: the dequantizer without conversion instructions (bf16: the upper halves of the exact fp32 values
# packed by prmt; fp16: 1024 + u made by prmt), bit-identical by construction. The extension on an empty cache; in
# parallel the A/B harness (probe/ab_*.cu: the launcher of this tree and of probe/old_csrc, the headers before, in one
# binary; outputs compared bit for bit, timed in alternation); then the weight-only benchmark at the decode shapes
# (bf16 F.linear beside, one process) and the weight-only GPU tests. $OUT packed into one archive.
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s32a
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_* /tmp/ab32
mkdir -p $CUTLASS_GEMM_CACHE_DIR /tmp/ab32
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site32 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site32:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
P=tools/results/h100-2026-11-27/session32/probe
# (as run, probe/old_csrc/ was a folder of header copies; probe/old_csrc.patch rebuilds it from the committed headers)
rm -rf /tmp/old_csrc && mkdir -p /tmp/old_csrc && cp cutlass_gemm/runtime/csrc/{wo_*.cuh,wo_spread.h,pdl.cuh} /tmp/old_csrc/ && (cd /tmp/old_csrc && patch -s -p1 < $OLDPWD/$P/old_csrc.patch) || exit 3
NV="nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90"
($NV -I cutlass_gemm/runtime/csrc -c $P/ab_tu.cu -o /tmp/ab32/new.o > $OUT/ab_build_new.log 2>&1) &
($NV -DAB_OLD -I /tmp/old_csrc -c $P/ab_tu.cu -o /tmp/ab32/old.o > $OUT/ab_build_old.log 2>&1) &
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
wait
$NV $P/ab_main.cu /tmp/ab32/new.o /tmp/ab32/old.o -o /tmp/ab32/ab > $OUT/ab_link.log 2>&1
echo "harness rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
timeout 120 /tmp/ab32/ab > $OUT/ab.md 2>&1
echo "ab rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
SW=1x8192x8192,4x8192x8192,8x8192x8192,16x8192x8192,1x28672x4096,8x28672x4096,16x28672x4096,1x4096x14336,4x4096x14336,8x4096x14336,16x4096x14336
timeout 150 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
timeout $((575 - SECONDS)) python3 -m pytest -q -m gpu -p no:cacheprovider tests/test_wo_variants_gpu.py tests/test_weight_only_gpu.py > $OUT/t_wo.log 2>&1
echo "wo tests rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
tail -n 3 $OUT/t_wo.log; grep -E "^(FAILED|ERROR)" $OUT/t_wo.log | head -5
cat $OUT/ab.md
cat $OUT/bwo/weight_only.md
cd $OUT && tar czf all.tgz --remove-files * && ls
