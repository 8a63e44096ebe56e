#!/usr/bin/env bash
# Recreates the head copies qt12.cu and qt13.cu include (the library's quant headers at the commits they were
# compared against) from git, instead of keeping copies of library source in the tree:
#   head/   commit 1781920 (qt12.cu: RMSNorm's first pass without the input absmax)
#   head13/ commit bd50d1a (qt13.cu: the next-wave L2 prefetch; the library then needs prefetch.diff applied)
set -eu
cd "$(dirname "$0")"
for pair in head:1781920 head13:bd50d1a; do
  dir=${pair%%:*}; commit=${pair##*:}
  mkdir -p "$dir"
  for f in quant_common.cuh quant_rows.cuh quant_tensor.cuh quant_launch.cuh; do
    git show "$commit:cutlass_gemm/runtime/csrc/$f" > "$dir/$f"
  done
done
