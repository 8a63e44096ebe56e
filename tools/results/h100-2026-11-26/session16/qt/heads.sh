#!/usr/bin/env bash
# Recreates head16/, the library's quant headers at commit d392b48 (session 15's last), that qt16.cu times and
# compares against, from git instead of keeping copies of library source in the tree.
set -eu
cd "$(dirname "$0")"
mkdir -p head16
for f in quant_common.cuh quant_rows.cuh quant_tensor.cuh quant_launch.cuh; do
  git show "d392b48:cutlass_gemm/runtime/csrc/$f" > "head16/$f"
done
