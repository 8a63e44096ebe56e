#!/usr/bin/env bash
# Session 13: the three copies of the W8A8 decode GEMV that gemv13.cu compares (run from the repository root):
# v0 = commit dc3239d's csrc/gemv_w8a8.{cuh,cu,h} (from git), v1 = that with tiles.diff applied (two weight tiles per
# CTA at M 9..16; not adopted, so the diff is kept beside this script), v2 = v1 with CG_GEMV_TILES16=1 (one tile).
set -eu
SRC=cutlass_gemm/runtime/csrc
DIFF=$(cd "$(dirname "$0")" && pwd)/tiles.diff
OUT=${1:-devtmp/gemv13}
mkdir -p $OUT/v0 $OUT/v1 $OUT/v2
for f in gemv_w8a8.cuh gemv_w8a8.cu gemv_w8a8.h; do
  git show dc3239d:$SRC/$f > $OUT/v0/$f
  cp $OUT/v0/$f $OUT/v1/$f
done
(cd $OUT/v1 && patch -s -p4 < "$DIFF")
for f in gemv_w8a8.cuh gemv_w8a8.cu gemv_w8a8.h; do cp $OUT/v1/$f $OUT/v2/$f; done
sed -i 's/^#define CG_GEMV_TILES16 2$/#define CG_GEMV_TILES16 1/' $OUT/v2/gemv_w8a8.cu
grep -c "CG_GEMV_TILES16 1" $OUT/v2/gemv_w8a8.cu
# identical copies of a header share one #pragma once (gcc compares contents): make v2's differ
for f in gemv_w8a8.cuh gemv_w8a8.h; do echo "// v2 copy" >> $OUT/v2/$f; done
