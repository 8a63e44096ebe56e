# Session 29 call 4 (2026-11-27), carry [".whl"], from the repository root, EMPTY kernel cache, one H100:
#   bash tools/results/h100-2026-11-27/session29/call4/command.sh
# The committed weight-only table (variants 23 / 26 at M = 1) on a second machine: the extension, the weight-only
# benchmark at M = 1 and 16, then the tiny Llama under w4a16 / w8a16 (logits against bf16, CUDA-graph generation).
set -u
SECONDS=0
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s29d
unset CUTLASS_GEMM_PDL
rm -rf $CUTLASS_GEMM_CACHE_DIR /tmp/torchinductor_*
mkdir -p $CUTLASS_GEMM_CACHE_DIR
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site29 .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site29:$PWD
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt 2>&1
python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $OUT/extension.log 2>&1
echo "extension rc=$? at ${SECONDS}s" | tee $OUT/times.txt
SW=1x8192x8192,16x8192x8192,1x28672x4096,1x4096x14336,16x4096x14336
timeout 100 python3 tools/benchmark.py weight_only --shapes $SW --out $OUT/bwo > $OUT/bench_wo.log 2>&1
echo "wo bench rc=$? at ${SECONDS}s" | tee -a $OUT/times.txt
timeout $((470 - SECONDS)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/test_llama_gpu.py -k "w4a16 or w8a16" > $OUT/t_llama.log 2>&1
echo "llama tests rc=$? at ${SECONDS}s: $(tail -n 1 $OUT/t_llama.log)" | tee -a $OUT/times.txt
grep -E "FAILED|ERROR" $OUT/t_llama.log | head
grep -E "w4a16 g128 \||w8a16 \||bf16 F.linear \|" $OUT/bench_wo.log | head -20
cd $OUT && tar czf all.tgz --remove-files * && ls
