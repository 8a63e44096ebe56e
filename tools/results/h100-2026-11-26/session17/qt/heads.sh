#!/usr/bin/env bash
# Recreates head17/, the library's quant headers at commit 59b25f1 (session 16's last), that qt17.cu times and
# compares against, from git instead of keeping copies of library source in the tree.
set -eu
cd "$(dirname "$0")"
mkdir -p head17
for f in quant_common.cuh quant_rows.cuh quant_tensor.cuh quant_launch.cuh; do
  git show "59b25f1:cutlass_gemm/runtime/csrc/$f" > "head17/$f"
done
