#!/usr/bin/env bash
# Session 13: recreate, from git, the inputs of the comparisons against commit 059754b (run from the repository root):
#   coldstart/old_int8_t64x64.cu, old_e4m3_t256x128.cu  (one_kernel.py; present in the tree when call 1 ran)
#   devtmp/old_src/*.cu                                 (bulk.py, call 8: every 4th kernel of the sorted default set)
set -eu
C=tools/results/h100-2026-11-26/session13/coldstart
old() { git show "059754b:generated/sm90/$1.cu"; }
old sm90_int8_bf16_scaled_bias_token_channel_t64x64x128_c1x1x1_pingpong_s0_a16x16x8 > $C/old_int8_t64x64.cu
old sm90_e4m3_bf16_scaled_bias_tensor_tensor_t256x128x128_c1x2x1_cooperative_s0_a16x16x8 > $C/old_e4m3_t256x128.cu
mkdir -p devtmp/old_src
for n in $(ls generated/sm90/*.cu | xargs -n1 basename | sed 's/\.cu$//' | sort | awk 'NR % 4 == 1' | head -n 32); do
  old "$n" > "devtmp/old_src/$n.cu"
done
