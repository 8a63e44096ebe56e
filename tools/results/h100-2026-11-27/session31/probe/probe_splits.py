#!/usr/bin/env python3
"""Session 31 probe (issue 12's W8A16 >= 1.8x at M = 16): the table's kernels at the M = 16 (and 8) decode rows under a
forced split-K count (ext.wo_gemm's `split`, 0 = the plan's; the direct kernels add splits until their x fits) x the
launcher's CTA spread on / off (ext.wo_set_pdl_policy 2 / 1), timed in alternation with bf16 F.linear
(bench_common.alternating_time_us). Outputs checked against bf16 F.linear on the dequantized weight. A probe.

    python3 probe_splits.py OUT.md
"""
import itertools
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import L2_BYTES, alternating_time_us, copies_for, copy_bandwidth_gbps, cycler  # noqa: E402
from probe_cluster import packed  # noqa: E402
from cutlass_gemm.quant import dequantize_packed  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

CASES = [(16, 8192, 8192, 8, 22), (16, 4096, 14336, 8, 22), (16, 28672, 4096, 8, 10), (8, 8192, 8192, 8, 22),
         (16, 8192, 8192, 4, 22), (16, 4096, 14336, 4, 4)]
SPLITS = (0, 2, 3, 4, 5, 6, 8)


def main():
    ext = extension.load()
    out = open(sys.argv[1], "w")
    bw = copy_bandwidth_gbps()
    settings = list(itertools.product(SPLITS, (2, 1)))
    out.write(f"{torch.cuda.get_device_name()}; copy {bw:.0f} GB/s; us per call (x bf16) by forced splits "
              "(0: the plan's) and spread policy (2 default, 1 off)\n\n")
    out.write("| M x N x K | bits | variant | plan | bf16 | " + " | ".join(f"sp{s} s{p}" for s, p in settings)
              + " | max rel err |\n|" + "---|" * (6 + len(settings)) + "\n")
    for m, n, k, bits, vid in CASES:
        p, group = packed(n, k, bits)
        w16 = dequantize_packed(p, torch.bfloat16)
        nbytes = n * k * bits // 8 + p.scales.numel() * 2
        copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
        packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
        w16s = [w16] + [w16.clone() for _ in range(3)]
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        ref = F.linear(x, w16).float()
        err = 0.0
        for sp, pol in settings:
            ext.wo_set_pdl_policy(pol)
            y = ext.wo_gemm(x, p.qweight, p.scales, None, None, bits, group, n, sp, vid).float()
            err = max(err, ((y - ref).norm() / ref.norm()).item())
        base = cycler([lambda w=w: F.linear(x, w) for w in w16s])
        fns = [lambda: base()()]
        for sp, pol in settings:
            nx = cycler([lambda q=q, s=s, sp=sp: ext.wo_gemm(x, q, s, None, None, bits, group, n, sp, vid)
                         for q, s in packs])
            fns.append(lambda pol=pol, nx=nx: (ext.wo_set_pdl_policy(pol), nx()()))
        t = alternating_time_us(fns)
        ext.wo_set_pdl_policy(2)
        plan = ext.wo_plan_info(m, n, k, bits, False, True, vid)
        out.write(f"| {m}x{n}x{k} | {bits} | v{vid} | {plan[2]} splits | {t[0]:.2f} | "
                  + " | ".join(f"{v:.2f} ({t[0] / v:.2f}x)" for v in t[1:]) + f" | {err:.2e}{' BAD' if err > 2e-2 else ''} |\n")
        out.flush()
    print(open(sys.argv[1]).read())


if __name__ == "__main__":
    main()
