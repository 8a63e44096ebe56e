#!/usr/bin/env python3
"""Session 31 probe: why the cluster split-K reduction (call 2) was slower at 4-8 splits. For a few decode cases, the
split direct kernels timed in alternation (bench_common.alternating_time_us) under: workspace / cluster reduction
(ext.wo_set_cluster_reduce) x PDL on / off (ext.pdl_set) x the launcher's CTA spread on / off (ext.wo_set_pdl_policy
2 / 1). Outputs checked equal across settings. A probe, not a design.

    python3 probe_cluster_pdl.py OUT.md
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
from cutlass_gemm.runtime import extension  # noqa: E402

CASES = [(16, 8192, 8192, 4, 22), (16, 8192, 8192, 8, 22), (1, 4096, 14336, 4, 26), (8, 8192, 8192, 4, 16),
         (1, 8192, 8192, 4, 26)]


def main():
    ext = extension.load()
    out = open(sys.argv[1], "w")
    bw = copy_bandwidth_gbps()
    settings = list(itertools.product((0, 1), (1, 0), (2, 1)))  # cluster, pdl, spread policy
    out.write(f"{torch.cuda.get_device_name()}; copy {bw:.0f} GB/s; us per call (cluster reduce, PDL, spread policy)\n\n")
    out.write("| M x N x K | bits | variant | bf16 | " + " | ".join(f"c{c} p{p} s{s}" for c, p, s in settings)
              + " | same |\n|" + "---|" * (5 + len(settings)) + "\n")
    for m, n, k, bits, vid in CASES:
        p, group = packed(n, k, bits)
        nbytes = n * k * bits // 8 + p.scales.numel() * 2
        copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
        packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
        w16 = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        w16s = [w16] + [w16.clone() for _ in range(3)]
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)

        def apply(c, pd, sp):
            ext.wo_set_cluster_reduce(c)
            ext.pdl_set(pd)
            ext.wo_set_pdl_policy(sp)

        outs = []
        for st in settings:
            apply(*st)
            outs.append(ext.wo_gemm(x, p.qweight, p.scales, None, None, bits, group, n, 0, vid))
        same = all(torch.equal(outs[0], o) for o in outs)
        base = cycler([lambda w=w: F.linear(x, w) for w in w16s])
        fns = [lambda: base()()]
        for st in settings:
            nx = cycler([lambda q=q, s=s: ext.wo_gemm(x, q, s, None, None, bits, group, n, 0, vid) for q, s in packs])
            fns.append(lambda st=st, nx=nx: (apply(*st), nx()()))
        t = alternating_time_us(fns)
        apply(1, 1, 2)
        out.write(f"| {m}x{n}x{k} | {bits} | v{vid} | {t[0]:.2f} | " + " | ".join(f"{v:.2f}" for v in t[1:])
                  + f" | {same} |\n")
        out.flush()
    print(open(sys.argv[1]).read())


if __name__ == "__main__":
    main()
