#!/usr/bin/env python3
"""Session 35 probe, run under Nsight Compute: one weight-only kernel at 64 x 8192 x 8192 (bf16 x, int4 g128, symmetric),
launched 8 times on rotating weight copies, so `ncu --launch-skip 5 --launch-count 1` profiles a warm launch.

    python3 prof_wo.py mixed        # the SM90 mixed-input kernel the op selects at 64 rows
    python3 prof_wo.py v29          # small-M variant 29 (or any vN) at its plan
"""
import sys

import torch


def main():
    from cutlass_gemm.quant import WeightOnlyQuant, prepack
    from cutlass_gemm.quant.prepack import LAYOUT_MIXED
    from cutlass_gemm.runtime import extension
    case = sys.argv[1]
    m, n, k, bits, group = 64, 8192, 8192, 4, 128
    g = torch.Generator(device="cuda").manual_seed(1)
    q = torch.randint(-8, 8, (n, k), generator=g, device="cuda", dtype=torch.int16)
    s = (torch.rand(n, k // group, generator=g, device="cuda") * 0.01 + 1e-3).bfloat16()
    wq = WeightOnlyQuant(q, s, None, bits, group)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
    if case == "mixed":
        ps = [prepack(wq, layout=LAYOUT_MIXED) for _ in range(4)]
        call = lambda p: torch.ops.cutlass_gemm.weight_only_mm(  # noqa: E731
            x, p.qweight, p.scales, None, None, None, layout=LAYOUT_MIXED, bits=bits, group_size=group, n=n)
    else:
        ext = extension.load()
        vid = int(case[1:])
        ps = [prepack(wq) for _ in range(4)]
        call = lambda p: ext.wo_gemm(x, p.qweight, p.scales, None, None, bits, group, n, 0, vid)  # noqa: E731
    for i in range(8):
        call(ps[i % 4])
    torch.cuda.synchronize()
    print(case, "done")


if __name__ == "__main__":
    main()
