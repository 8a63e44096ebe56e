#!/usr/bin/env python3
"""Session 18 probe (issue 12's W8A16 line, >= 1.8x bf16 at M <= 16): the weight-only small-M kernel on int8
per-channel weights, bf16 x, at M = 1 / 4 / 16 and three LLM shapes, every variant that serves M x forced split-K
counts (0 = the plan's own), through ext.wo_gemm on rotated weight copies; each output checked against bf16 F.linear
on the dequantized weight first. (Session 16's probe, session16/wo/probe_wo.py, did this for int4 g128 only.)

    python3 probe_w8.py OUT.md
"""
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
from bench_common import L2_BYTES, copies_for, copy_bandwidth_gbps, cycler, gpu_time_us  # noqa: E402
from cutlass_gemm.ops.wo_heuristics import VARIANTS, select_variant, variant_rows  # noqa: E402
from cutlass_gemm.quant import WeightOnlyQuant, dequantize_packed, prepack  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402


def packed(n, k):
    g = torch.Generator(device="cuda").manual_seed(4)
    q = torch.randint(-127, 128, (n, k), generator=g, device="cuda", dtype=torch.int16)
    s = torch.rand(n, 1, generator=g, device="cuda") * 1e-3 + 1e-4
    return prepack(WeightOnlyQuant(q, s.bfloat16(), None, 8, None))


def main():
    ext = extension.load()
    out = open(sys.argv[1], "w")
    bw = copy_bandwidth_gbps()
    out.write(f"copy bandwidth {bw:.0f} GB/s; int8 per channel, bf16 x; us = bench_common.gpu_time_us on rotated weight "
              "copies; * = the variant the layer takes (wo_heuristics.select_variant)\n\n")
    out.write("| M x N x K | variant | splits asked | us | % of floor | x bf16 |\n|---|---|---|---|---|---|\n")
    for n, k in ((8192, 8192), (4096, 14336), (28672, 4096)):
        p = packed(n, k)
        w16 = dequantize_packed(p, torch.bfloat16)
        nbytes = n * k + p.scales.numel() * 2
        copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=8)
        packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
        w16s = [w16] + [w16.clone() for _ in range(2)]
        for m in (1, 4, 16):
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            ref = F.linear(x, w16).float()
            nxt = cycler([lambda w=w: F.linear(x, w) for w in w16s])
            base = gpu_time_us(lambda: nxt()())
            out.write(f"| {m}x{n}x{k} | bf16 F.linear | | {base:.2f} | | 1.00 |\n")
            dflt = select_variant(m, n, k, 8)
            best = None
            for vid in [0] + sorted(VARIANTS):
                if m > variant_rows(vid):
                    continue
                for sp in (0, 2, 4, 8):
                    try:
                        y = ext.wo_gemm(x, p.qweight, p.scales, None, None, 8, 0, n, sp, vid).float()
                        err = ((y - ref).norm() / ref.norm()).item()
                        if not err < 1e-2:
                            out.write(f"| {m}x{n}x{k} | v{vid} | {sp} | BAD err {err:.2e} | | |\n")
                            continue
                        nxt = cycler([lambda q=q, s=s: ext.wo_gemm(x, q, s, None, None, 8, 0, n, sp, vid) for q, s in packs])
                        us = gpu_time_us(lambda: nxt()())
                    except Exception as exc:  # noqa: BLE001 - a probe row, not a product path
                        out.write(f"| {m}x{n}x{k} | v{vid} | {sp} | {type(exc).__name__}: {str(exc)[:80]} | | |\n")
                        continue
                    name = f"v{vid}" + ("*" if vid == dflt else "") + ("" if vid == 0 else f" {VARIANTS[vid][0]}")
                    out.write(f"| {m}x{n}x{k} | {name} | {sp} | {us:.2f} | {100 * nbytes / bw / 1e3 / us:.1f} | {base / us:.2f} |\n")
                    out.flush()
                    if best is None or us < best[0]:
                        best = (us, vid, sp)
            out.write(f"| {m}x{n}x{k} | **best** v{best[1]} splits {best[2]} | | {best[0]:.2f} | | {base / best[0]:.2f} |\n")
        del packs, w16s
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
