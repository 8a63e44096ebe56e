#!/usr/bin/env bash
# Recreates the header copies qt18.cu compiles beside the library's own (from git, not kept in the tree):
#   head18/  commit ee39c0f's quant headers (session 17's last), namespace cg_quant_head in qt18.cu;
#   plain18/ the working tree's, with every L1-policy load made a plain one (ld_vec<Ld::kPlain>; since call 2 the
#            few-rows kernels' input loads are the only streaming ones): what the load policies alone change.
# Run from anywhere; the working tree must hold the code under test (call 1: the first build, call 2: the final one).
set -eu
cd "$(dirname "$0")"
src=../../../../../cutlass_gemm/runtime/csrc
mkdir -p head18 plain18
for f in quant_common.cuh quant_rows.cuh quant_tensor.cuh quant_launch.cuh; do
  # a first line of its own in each copy: #pragma once takes files of equal content for one file
  { echo "// head18 copy"; git show "ee39c0f:cutlass_gemm/runtime/csrc/$f"; } > "head18/$f"
  { echo "// plain18 copy"; sed -e 's/ld_vec<Ld::kStream>/ld_vec<Ld::kPlain>/g' -e 's/ld_vec<Ld::kKeep>/ld_vec<Ld::kPlain>/g' -e 's/Ld kS = Ld::kStream/Ld kS = Ld::kPlain/' "$src/$f"; } > "plain18/$f"
done
grep -c "Ld::kPlain" plain18/quant_rows.cuh
