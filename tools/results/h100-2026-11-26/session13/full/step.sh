#!/usr/bin/env bash
# Session 13: the whole GPU suite on the split-build kernels, from an empty kernel cache, over as many calls as it
# takes. Each call runs this script; it does the next undone tasks in order and stops starting new ones when fewer
# than RESERVE seconds of the call's 600 are left. A task's completion is marked under /tmp/s13_state, so a later
# call on the same warm machine continues where this one stopped; on a fresh machine it starts again (kernels
# already built are cache hits). Every log is copied to OUT.
#   bash step.sh OUT RESERVE CALLER_SECONDS
OUT=$1; RESERVE=$2; SECONDS=${3:-0}
S=tools/results/h100-2026-11-26/session13
ST=/tmp/s13_state
mkdir -p $ST
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s13

left() { echo $((590 - SECONDS)); }
# run NAME LIMIT CMD...: once per machine; a task killed at its limit is not marked done (rerun next call)
run() {
  local name=$1 limit=$2; shift 2
  [ -f $ST/$name.done ] && return 0
  local l=$(left)
  if [ $l -lt $RESERVE ]; then echo "stop before $name: ${l}s left"; exit 0; fi
  [ $limit -gt $((l - 10)) ] && limit=$((l - 10))
  local t0=$SECONDS
  timeout $limit bash -c '"$@"' bash "$@" > $ST/$name.log 2>&1
  local rc=$?
  cp $ST/$name.log $OUT/$name.log
  echo "$name rc=$rc in $((SECONDS - t0))s: $(grep -v '^\s*$' $ST/$name.log | tail -n 1 | cut -c1-200)"
  if [ $rc -eq 124 ]; then echo "$name TIMED OUT"; exit 0; fi
  touch $ST/$name.done
}
gen() { python3 tools/generate_kernels.py "$@" --compile --jobs 16 2>&1 | grep -v "^nvcc:"; }
tests() { python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider "$@"; }
export -f gen tests

run extension 400 python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()"
run k_default 500 gen --sm 90 --out /tmp/gen90 --all
run k_extra 400 gen --out /tmp/gen_extra $(python3 tools/results/h100-2026-11-26/session11/full/kernels.py)
for f in test_ops_gpu test_nn_gpu test_quant_gpu test_quant_ops_gpu test_gemv_gpu test_cublaslt_gpu \
         test_blockint8_gpu test_activation_gpu test_streamk_gpu test_llama_gpu test_weight_only_gpu \
         test_wo_variants_gpu; do
  run $f 560 tests tests/$f.py
done
run k_blockwise 400 gen --out /tmp/gen_bw --blockwise
run test_blockwise_gpu 560 tests tests/test_blockwise_gpu.py
run k_mixed 300 gen --out /tmp/gen_mx --mixed
run test_weight_only_mixed_gpu 560 tests tests/test_weight_only_mixed_gpu.py
run k_conv 400 gen --out /tmp/gen_cv --conv $(python3 tools/results/h100-2026-11-26/session11/full/kernels.py --conv)
for f in test_conv_gpu test_conv_int8_gpu test_sm80_on_sm90_gpu; do
  run $f 560 tests tests/$f.py
done
echo "all tasks done at ${SECONDS}s"
