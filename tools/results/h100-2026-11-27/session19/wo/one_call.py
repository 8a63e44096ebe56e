#!/usr/bin/env python3
"""Session 19: one weight-only variant called 10 times at M x N x K (bf16 x, int4 g128 or int8 per channel), for
Nsight Compute (`ncu --launch-skip 9 --launch-count 1`). python3 one_call.py BITS VARIANT M N K"""
import sys

import torch

from cutlass_gemm.quant import prepack, quantize_weight_only
from cutlass_gemm.runtime import extension

bits, variant, m, n, k = (int(a) for a in sys.argv[1:6])
ext = extension.load()
w = torch.randn(n, k, device="cuda") * 0.02
p = prepack(quantize_weight_only(w, bits, 128 if bits == 4 else None, scale_dtype=torch.bfloat16), device="cuda")
x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
for _ in range(10):
    ext.wo_gemm(x, p.qweight, p.scales.bfloat16(), None, None, bits, 128 if bits == 4 else 0, n, 0, variant)
torch.cuda.synchronize()
