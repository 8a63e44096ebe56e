#!/usr/bin/env bash
# Writes the three copies of the W8A8 decode GEMV (csrc/gemv_w8a8.{cuh,cu,h} of this tree) that gemv12.cu compares:
# v0 as it is, v1 / v2 with the weight loads' L2 prefetch hint (.L2::128B / .L2::256B: the L2 fetches the
# 128 / 256 bytes around each 16-byte load, i.e. the next chunks of the same weight row, without registers).
set -eu
SRC=$(cd "$(dirname "$0")/../../../../.." && pwd)/cutlass_gemm/runtime/csrc
OUT=${1:-/work/main/devtmp/gemv12}
for v in 0 1 2; do
  mkdir -p $OUT/v$v
  hint=$([ $v = 1 ] && echo ".L2::128B" || ([ $v = 2 ] && echo ".L2::256B" || echo ""))
  sed "s#ld.global.nc.L1::no_allocate.v4.u32#ld.global.nc.L1::no_allocate${hint}.v4.u32#" $SRC/gemv_w8a8.cuh > $OUT/v$v/gemv_w8a8.cuh
  cp $SRC/gemv_w8a8.cu $SRC/gemv_w8a8.h $SRC/ext_msg.h $OUT/v$v/ 2>/dev/null || cp $SRC/gemv_w8a8.cu $SRC/gemv_w8a8.h $OUT/v$v/
  grep -c "no_allocate${hint}.v4" $OUT/v$v/gemv_w8a8.cuh
done
