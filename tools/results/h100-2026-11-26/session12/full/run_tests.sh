#!/usr/bin/env bash
# Session 12: the GPU test files the scale_flags change (GEMM launcher ABI 3) touches. Runs the GPU test files in order, one pytest process each, skipping files that already have a log under $R
# (a previous call on the same warm machine ran them), and stops starting new files when fewer than $2 seconds of
# this call are left. Usage: run_tests.sh OUT_DIR SECONDS_RESERVED CALLER_SECONDS (the call's clock so far: a new
# bash starts its own SECONDS at 0; call 7 ran without it and was killed at its limit inside its 10th file).
OUT=$1; RESERVE=$2; SECONDS=${3:-0}
R=/tmp/full_s12
mkdir -p $R
FILES="test_ops_gpu test_gemv_gpu test_sm80_on_sm90_gpu test_quant_ops_gpu test_nn_gpu test_streamk_gpu test_activation_gpu test_llama_gpu"
for f in $FILES; do
  [ -f $R/$f.log ] && continue
  left=$((590 - SECONDS))
  if [ $left -lt $RESERVE ]; then echo "stop before $f: ${left}s left"; break; fi
  t0=$SECONDS
  timeout $((left - 15)) python3 -m pytest -m gpu -q -rfEs -p no:cacheprovider tests/$f.py > $R/$f.part 2>&1
  rc=$?
  cp $R/$f.part $OUT/$f.log 2>/dev/null
  if [ $rc -eq 124 ]; then echo "$f TIMED OUT after $((SECONDS - t0))s"; cp $R/$f.part $OUT/$f.timeout.log; break; fi
  mv $R/$f.part $R/$f.log
  echo "$f rc=$rc in $((SECONDS - t0))s: $(tail -n 1 $R/$f.log)"
done
cp $R/*.log $OUT/ 2>/dev/null
