#!/usr/bin/env python3
"""Session 22 probe (issue 12's M = 16 lines): run one decode kernel a few times for Nsight Compute.

    python3 wprof.py wo M N K BITS VARIANT     # ext.wo_gemm on a packed weight (int4 g128 / int8 per channel)
    python3 wprof.py gemv M N K                # the W8A8 decode GEMV (scaled_mm int8 at M <= 16)

A probe, not a design: the kernels are profiled with `ncu --launch-skip 4 --launch-count 1`.
"""
import sys

import torch

import cutlass_gemm
from cutlass_gemm.quant import WeightOnlyQuant, prepack
from cutlass_gemm.runtime import extension


def main():
    mode = sys.argv[1]
    m, n, k = map(int, sys.argv[2:5])
    g = torch.Generator(device="cuda").manual_seed(1)
    if mode == "wo":
        bits, v = int(sys.argv[5]), int(sys.argv[6])
        group = 128 if bits == 4 else None
        half = 2 ** (bits - 1)
        q = torch.randint(-half, half, (n, k), generator=g, device="cuda", dtype=torch.int16)
        s = torch.rand(n, k // (group or k), generator=g, device="cuda") * 0.01 + 1e-3
        p = prepack(WeightOnlyQuant(q, s.bfloat16(), None, bits, group))
        x = torch.randn(m, k, device="cuda", generator=g, dtype=torch.bfloat16)
        ext = extension.load()
        for _ in range(6):
            ext.wo_gemm(x, p.qweight, p.scales, None, None, bits, group or 0, n, 0, v)
        print(f"wo {m}x{n}x{k} int{bits} v{v} plan {ext.wo_plan_info(m, n, k, bits, False, True, v)}")
    else:
        a = torch.randint(-127, 128, (m, k), generator=g, device="cuda", dtype=torch.int8)
        w = torch.randint(-127, 128, (n, k), generator=g, device="cuda", dtype=torch.int8)
        sa = torch.rand(m, 1, generator=g, device="cuda") * 0.01
        sb = torch.rand(1, n, generator=g, device="cuda") * 0.01
        for _ in range(6):
            cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16)
        print(f"gemv {m}x{n}x{k}")
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
