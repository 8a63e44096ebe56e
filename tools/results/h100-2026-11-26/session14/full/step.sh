#!/usr/bin/env bash
# Session 14: the weight-only GPU tests and benchmark on the new mixed-input selection (kernels/mixed_input.py
# SELECTION, 32 kernels; the small-M / mixed hand-off at M = 17), from an EMPTY kernel cache, over as many calls as
# it takes (state under /tmp/s14_state: a later call on the same warm machine continues; on a fresh one it starts
# again, built kernels being cache hits). Every log is copied to OUT.
#   bash step.sh OUT RESERVE CALLER_SECONDS
OUT=$1; RESERVE=$2; SECONDS=${3:-0}
ST=/tmp/s14_state
mkdir -p $ST
export PYTHONUNBUFFERED=1 CUTLASS_GEMM_CACHE_DIR=/tmp/cgc_s14full

left() { echo $((590 - SECONDS)); }
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
gen() { python3 tools/generate_kernels.py "$@" --compile --jobs 16 2>&1 | tr '\r' '\n' | grep -v "^nvcc:"; }
tests() { python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider "$@"; }
both() {  # the extension and the mixed-input set at once (what a new user's first prefill and decode need)
  ( python3 -c "from cutlass_gemm.runtime import extension; extension.build_extension()" > $ST/ext.log 2>&1; echo "extension rc=$? at ${SECONDS}s" >> $ST/ext.log ) &
  gen --mixed --out /tmp/gen_mx; wait; cat $ST/ext.log | tail -n 2
}
export -f gen tests both
export ST

run build 500 both
run test_weight_only_mixed_gpu 400 tests tests/test_weight_only_mixed_gpu.py
run test_weight_only_gpu 400 tests tests/test_weight_only_gpu.py
run bench_wo 500 python3 tools/benchmark.py weight_only --out $OUT/bwo
run k_default 300 gen --sm 90 --out /tmp/gen90
run test_llama_gpu 400 tests tests/test_llama_gpu.py
echo "all tasks done at ${SECONDS}s"
