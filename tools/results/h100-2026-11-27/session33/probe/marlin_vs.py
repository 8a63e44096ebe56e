#!/usr/bin/env python3
"""Session 33 probe: this library's W4A16 decode layer beside Marlin (IST-DASLab/marlin, the fp16 x int4 kernel the
issue's "3.1-3.9x up to M = 16-32" figure comes from, measured there on an A100) on the H100, in one process.

Everything in fp16 (Marlin serves fp16 activations only): fp16 `F.linear` (cuBLAS), `WeightOnlyLinear` (int4 group
128, symmetric, as `from_float` builds it: large_m_backend "auto"), Marlin group 128 and Marlin per channel. The
library and Marlin g128 hold the very same int4 values and fp16 scales (w = q * s, q in -8..7; Marlin stores q + 8), so
their outputs are compared with each other and with fp16 `F.linear` on the dequantized weight. Each call uses the next
of several copies of its weights (> 4x L2 in all); all rows of a shape are timed in alternation
(`bench_common.alternating_time_us`, batches of 20 behind a GPU sleep, 9 rounds, medians). A probe, not a benchmark
row: Marlin is built from its source by the command script (not part of this library).

    PYTHONPATH=<marlin build dir>:... python3 marlin_vs.py OUT.md
"""
import sys
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
from bench_common import L2_BYTES, alternating_time_us, copies_for, copy_bandwidth_gbps, cycler, stamp  # noqa: E402

SHAPES = [(8192, 8192), (28672, 4096), (4096, 14336)]
ROWS = (1, 4, 8, 16, 32, 64)
GROUP = 128


def marlin_layer(marlin, w16, scales, group):
    """Marlin's own packer on the fake-quantized fp16 weight (N, K) and its scales (N, K / group)."""
    n, k = w16.shape
    lay = marlin.Layer(k, n, groupsize=group)
    lin = nn.Linear(k, n, bias=False).half()
    lin.weight.data = w16.cpu()
    lay.pack(lin, scales.cpu())
    return lay.cuda()


def main():
    import marlin
    from cutlass_gemm.nn import WeightOnlyLinear
    from cutlass_gemm.nn.weight_only import resolve_large_m_backend
    from cutlass_gemm.quant import WeightOnlyQuant, prepack

    backend = resolve_large_m_backend("auto", GROUP)  # what from_float picks on this device

    out = open(sys.argv[1], "w")
    bw = copy_bandwidth_gbps()
    out.write(f"{stamp()}\n\n{torch.cuda.get_device_name()}; copy bandwidth {bw:.0f} GB/s. fp16 x. us per call (x fp16 "
              "F.linear); floor = int4 weight + fp16 scale bytes / copy bandwidth. rel err: vs fp16 F.linear on the "
              "dequantized weight (Marlin per channel: on its own weight). `same`: max |library - Marlin g128| / max |ref|.\n\n")
    out.write("| M x N x K | fp16 F.linear | library w4a16 g128 | Marlin g128 | Marlin per channel | floor us | "
              "library / Marlin g128 | rel err lib / marlin g128 / marlin pc | same |\n|" + "---|" * 9 + "\n")
    for n, k in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(n + k)
        q = torch.randint(-8, 8, (n, k), generator=g, device="cuda", dtype=torch.int16)
        s = (torch.rand(n, k // GROUP, generator=g, device="cuda") * 0.01 + 1e-3).half()
        w16 = (q.float() * s.float().repeat_interleave(GROUP, dim=1)).half()  # q * s rounded once, as both kernels make it
        lib = [WeightOnlyLinear.from_packed(prepack(WeightOnlyQuant(q, s, None, 4, GROUP)), large_m_backend=backend)]
        nbytes = n * k // 2 + s.numel() * 2
        copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
        lib += [WeightOnlyLinear.from_packed(prepack(WeightOnlyQuant(q, s, None, 4, GROUP)), large_m_backend=backend)
                for _ in range(copies - 1)]
        mg = marlin_layer(marlin, w16, s, GROUP)
        mgs = [mg]
        for _ in range(copies - 1):
            c = marlin.Layer(k, n, groupsize=GROUP).cuda()
            c.B.copy_(mg.B)
            c.s.copy_(mg.s)
            mgs.append(c)
        # per channel: Marlin's own scale per column (absmax / 7), its own weight
        spc = (w16.float().abs().amax(dim=1, keepdim=True) / 7).clamp_min(1e-6).half()
        wpc = (torch.clamp(torch.round(w16.float() / spc.float()), -8, 7) * spc.float()).half()
        mp = marlin_layer(marlin, wpc, spc, -1)
        mps = [mp]
        for _ in range(copies - 1):
            c = marlin.Layer(k, n, groupsize=-1).cuda()
            c.B.copy_(mp.B)
            c.s.copy_(mp.s)
            mps.append(c)
        c16 = copies_for(2 * n * k, target=4 * L2_BYTES, lo=2, hi=4)
        w16s = [w16] + [w16.clone() for _ in range(c16 - 1)]
        torch.cuda.synchronize()
        for m in ROWS:
            x = torch.randn(m, k, device="cuda", dtype=torch.half, generator=g)
            ref = F.linear(x, w16).float()
            refp = F.linear(x, wpc).float()
            y_lib = lib[0](x).float()
            y_mg = mgs[0](x).float()
            y_mp = mps[0](x).float()
            rel = [((y - r).norm() / r.norm()).item() for y, r in ((y_lib, ref), (y_mg, ref), (y_mp, refp))]
            same = ((y_lib - y_mg).abs().max() / ref.abs().max()).item()
            fns = [cycler([lambda w=w: F.linear(x, w) for w in w16s]), cycler([lambda l=l: l(x) for l in lib]),
                   cycler([lambda l=l: l(x) for l in mgs]), cycler([lambda l=l: l(x) for l in mps])]
            t = alternating_time_us([lambda f=f: f()() for f in fns])
            floor = nbytes / bw / 1e3
            cells = [f"{t[0]:.2f}"] + [f"{v:.2f} ({t[0] / v:.2f}x, {100 * floor / v:.0f}%)" for v in t[1:]]
            flag = " BAD" if max(rel) > 2e-2 else ""
            out.write(f"| {m}x{n}x{k} | " + " | ".join(cells) + f" | {floor:.2f} | {t[2] / t[1]:.2f} | "
                      + " / ".join(f"{r:.1e}" for r in rel) + f"{flag} | {same:.1e} |\n")
            out.flush()
        del lib, mgs, mps, w16s
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
