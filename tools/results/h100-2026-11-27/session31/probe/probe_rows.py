#!/usr/bin/env python3
"""Session 31 probe: where the M = 16 decode time goes. The same kernel (variant, splits, CTAs: one plan) called with
1, 4, 8 and 16 rows of x: only the x bytes each CTA stages and the rows stored change, not the weight stream, the
mma count (the kernel's fixed m16 tiles) or the split-K tail. Timed in alternation with bf16 F.linear; outputs
checked against bf16 F.linear on the dequantized weight. A probe.

    python3 probe_rows.py OUT.md
"""
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import L2_BYTES, alternating_time_us, copies_for, copy_bandwidth_gbps, cycler  # noqa: E402
from probe_cluster import packed  # noqa: E402
from cutlass_gemm.ops.wo_heuristics import VARIANTS  # noqa: E402
from cutlass_gemm.quant import dequantize_packed  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

CASES = [(8192, 8192, 4, (22, 18, 16, 23)), (8192, 8192, 8, (22, 16, 23)), (4096, 14336, 4, (22, 4, 26))]
ROWS = (1, 4, 8, 16)


def main():
    ext = extension.load()
    out = open(sys.argv[1], "w")
    bw = copy_bandwidth_gbps()
    out.write(f"{torch.cuda.get_device_name()}; copy {bw:.0f} GB/s; us per call by rows of x (the plan at 16 rows "
              "forced for every M: same CTAs and splits)\n\n")
    out.write("| N x K | bits | variant | splits | " + " | ".join(f"M = {m}" for m in ROWS) + " | bf16 (M = 16) |"
              " max rel err |\n|" + "---|" * (6 + len(ROWS)) + "\n")
    for n, k, bits, vids in CASES:
        p, group = packed(n, k, bits)
        w16 = dequantize_packed(p, torch.bfloat16)
        nbytes = n * k * bits // 8 + p.scales.numel() * 2
        copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
        packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
        w16s = [w16] + [w16.clone() for _ in range(3)]
        xs = {m: torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m in ROWS}
        for vid in vids:
            rows = [m for m in ROWS if m <= VARIANTS[vid][1]]
            splits = ext.wo_plan_info(max(rows), n, k, bits, False, True, vid)[2]
            err = 0.0
            for m in rows:
                y = ext.wo_gemm(xs[m], p.qweight, p.scales, None, None, bits, group, n, splits, vid).float()
                ref = F.linear(xs[m], w16).float()
                err = max(err, ((y - ref).norm() / ref.norm()).item())
            base = cycler([lambda w=w: F.linear(xs[16], w) for w in w16s])
            fns = []
            for m in rows:
                fns.append(cycler([lambda q=q, s=s, m=m: ext.wo_gemm(xs[m], q, s, None, None, bits, group, n, splits, vid)
                                   for q, s in packs]))
            t = alternating_time_us([lambda f=f: f()() for f in fns] + [lambda: base()()])
            cells = {m: f"{v:.2f} ({100 * nbytes / bw / 1e3 / v:.0f}%)" for m, v in zip(rows, t)}
            out.write(f"| {n}x{k} | {bits} | v{vid} {VARIANTS[vid][0]} | {splits} | "
                      + " | ".join(cells.get(m, "-") for m in ROWS) + f" | {t[-1]:.2f} | {err:.2e}{' BAD' if err > 2e-2 else ''} |\n")
            out.flush()
    print(open(sys.argv[1]).read())


if __name__ == "__main__":
    main()
