#!/usr/bin/env python3
"""Session 19 probe (issue 12's decode lines): the weight-only small-M kernel's variants, the new register-fed
"direct" kernels (wo_direct.cuh, variants 14-20) beside the stream / mma ones, int4 g128 and int8 per channel
(symmetric), bf16 x, M = 1 / 4 / 8 / 16 at four LLM shapes, through ext.wo_gemm on rotated weight copies. Every
output is checked first against bf16 F.linear on the dequantized weight (relative error < 1e-2); direct kernels also
against the stream kernel of the same warp shape where one exists. Split counts: the plan's own (0) for every
variant, also 2 / 4 / 8 forced for the direct ones.

    python3 probe_direct.py OUT.md
"""
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
from bench_common import L2_BYTES, copies_for, copy_bandwidth_gbps, cycler, gpu_time_us  # noqa: E402
from cutlass_gemm.ops.wo_heuristics import VARIANTS, select_variant, variant_rows  # noqa: E402
from cutlass_gemm.quant import dequantize_packed, prepack, quantize_weight_only  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

SHAPES = ((8192, 8192), (28672, 4096), (4096, 14336), (4096, 4096))


def packed(n, k, bits):
    g = torch.Generator(device="cuda").manual_seed(n + k + bits)
    w = torch.randn(n, k, generator=g, device="cuda") * 0.02
    q = quantize_weight_only(w, bits, 128 if bits == 4 else None, zero_point=False, scale_dtype=torch.bfloat16)
    return prepack(q, device="cuda")


def main():
    ext = extension.load()
    out = open(sys.argv[1], "w")
    bw = copy_bandwidth_gbps()
    out.write(f"copy bandwidth {bw:.0f} GB/s; bf16 x; us = bench_common.gpu_time_us on rotated weight copies; "
              "* = the variant the layer takes today (wo_heuristics.select_variant)\n\n")
    out.write("| bits | M x N x K | variant | splits asked | us | % of floor | x bf16 |\n|---|---|---|---|---|---|---|\n")
    for bits in (4, 8):
        for n, k in SHAPES:
            p = packed(n, k, bits)
            scales = p.scales.to(torch.bfloat16)
            w16 = dequantize_packed(p, torch.bfloat16)
            nbytes = p.qweight.numel() * 4 + scales.numel() * 2
            copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
            packs = [(p.qweight, scales)] + [(p.qweight.clone(), scales.clone()) for _ in range(copies - 1)]
            w16s = [w16] + [w16.clone() for _ in range(2)]
            for m in (1, 4, 8, 16):
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                ref = F.linear(x, w16).float()
                nxt = cycler([lambda w=w: F.linear(x, w) for w in w16s])
                base = gpu_time_us(lambda: nxt()())
                floor = (nbytes + 2 * m * (n + k)) / bw / 1e3
                out.write(f"| {bits} | {m}x{n}x{k} | bf16 F.linear | | {base:.2f} | | 1.00 |\n")
                dflt = select_variant(m, n, k, bits)
                best = None
                for vid in [0] + sorted(VARIANTS):
                    if m > variant_rows(vid):
                        continue
                    direct = VARIANTS.get(vid, ("",))[0].startswith("direct")
                    for sp in ((0, 2, 4, 8) if direct else (0,)):
                        try:
                            y = ext.wo_gemm(x, p.qweight, scales, None, None, bits, 128 if bits == 4 else 0, n, sp, vid).float()
                            err = ((y - ref).norm() / ref.norm()).item()
                            if not err < 1e-2:
                                out.write(f"| {bits} | {m}x{n}x{k} | v{vid} | {sp} | BAD err {err:.2e} | | |\n")
                                continue
                            g = 128 if bits == 4 else 0
                            nxt = cycler([lambda q=q, s=s: ext.wo_gemm(x, q, s, None, None, bits, g, n, sp, vid) for q, s in packs])
                            us = gpu_time_us(lambda: nxt()())
                        except Exception as exc:  # noqa: BLE001 - a probe row, not a product path
                            out.write(f"| {bits} | {m}x{n}x{k} | v{vid} | {sp} | {type(exc).__name__}: {str(exc)[:80]} | | |\n")
                            continue
                        name = f"v{vid}" + ("*" if vid == dflt else "") + ("" if vid == 0 else f" {VARIANTS[vid][0]}")
                        out.write(f"| {bits} | {m}x{n}x{k} | {name} | {sp} | {us:.2f} | {100 * floor / us:.1f} | {base / us:.2f} |\n")
                        out.flush()
                        if best is None or us < best[0]:
                            best = (us, vid, sp)
                out.write(f"| {bits} | {m}x{n}x{k} | **best** v{best[1]} splits {best[2]} | | {best[0]:.2f} | "
                          f"{100 * floor / best[0]:.1f} | {base / best[0]:.2f} |\n")
            del packs, w16s
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
