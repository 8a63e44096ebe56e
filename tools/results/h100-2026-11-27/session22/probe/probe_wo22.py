#!/usr/bin/env python3
"""Session 22 probe (issue 12's M = 16 lines): weight-only small-M variants x the extension's PDL policy for them.

    python3 probe_wo22.py OUT.md [--m 1,8,16] [--variants 0,4,10,18,20,21,22] [--policies 0,1,2]

For each (N, K), bits (int4 g128 symmetric, int8 per channel), M and variant serving M: the output through
`ext.wo_gemm(..., variant)` checked against bf16 F.linear on the dequantized weight (relative Frobenius error,
flagged above 2e-2), then timed (bench_common.gpu_time_us: events around batches of 20 back-to-back calls behind a
GPU sleep, median of 7) on weight copies rotated past L2, under each `ext.wo_set_pdl_policy(p)`: 0 the library's rule
(direct and int4 kernels launched as programmatic dependents), 1 every kernel, 2 every kernel with at most
ceil(CTAs / SMs) CTAs per SM. A probe, not a design.
"""
import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
from bench_common import L2_BYTES, copies_for, copy_bandwidth_gbps, cycler, gpu_time_us  # noqa: E402
from cutlass_gemm.ops.wo_heuristics import VARIANTS, select_variant  # noqa: E402
from cutlass_gemm.quant import WeightOnlyQuant, dequantize_packed, prepack  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402


def packed(n, k, bits):
    g = torch.Generator(device="cuda").manual_seed(bits)
    half = 2 ** (bits - 1)
    group = 128 if bits == 4 else None
    q = torch.randint(-half, half, (n, k), generator=g, device="cuda", dtype=torch.int16)
    s = torch.rand(n, k // (group or k), generator=g, device="cuda") * 0.01 / (1 if bits == 4 else 16) + 1e-3
    return prepack(WeightOnlyQuant(q, s.bfloat16(), None, bits, group)), group or 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--m", default="1,8,16")
    ap.add_argument("--variants", default="0,4,10,14,17,18,20,21,22")
    ap.add_argument("--policies", default="0,1,2")
    ap.add_argument("--shapes", default="8192x8192,4096x14336,28672x4096")
    ap.add_argument("--bits", default="8,4")
    args = ap.parse_args()
    ext = extension.load()
    ms = [int(v) for v in args.m.split(",")]
    policies = [int(v) for v in args.policies.split(",")]
    out = open(args.out, "w")
    bw = copy_bandwidth_gbps()
    out.write(f"copy bandwidth {bw:.0f} GB/s; bf16 x; int4 g128 / int8 per channel, symmetric; us per call\n\n")
    out.write("| M x N x K | bits | variant | table's | " + " | ".join(f"policy {p} us (% floor, x bf16)" for p in policies)
              + " | plan | rel err |\n|" + "---|" * (6 + len(policies)) + "\n")
    for shape in args.shapes.split(","):
        n, k = map(int, shape.split("x"))
        for bits in [int(b) for b in args.bits.split(",")]:
            p, group = packed(n, k, bits)
            w16 = dequantize_packed(p, torch.bfloat16)
            nbytes = n * k * bits // 8 + p.scales.numel() * 2
            copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
            packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
            w16s = [w16] + [w16.clone() for _ in range(3)]
            for m in ms:
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                ref = F.linear(x, w16).float()
                nxt = cycler([lambda w=w: F.linear(x, w) for w in w16s])
                base = gpu_time_us(lambda: nxt()())
                out.write(f"| {m}x{n}x{k} | {bits} | bf16 F.linear | | {base:.2f} | | | | |\n")
                table = select_variant(m, n, k, bits)
                for vid in [int(v) for v in args.variants.split(",")]:
                    if vid and m > VARIANTS[vid][1]:
                        continue
                    cells = []
                    try:
                        y = ext.wo_gemm(x, p.qweight, p.scales, None, None, bits, group, n, 0, vid).float()
                        err = ((y - ref).norm() / ref.norm()).item()
                        for pol in policies:
                            ext.wo_set_pdl_policy(pol)
                            nx = cycler([lambda q=q, s=s: ext.wo_gemm(x, q, s, None, None, bits, group, n, 0, vid)
                                         for q, s in packs])
                            us = gpu_time_us(lambda: nx()())
                            cells.append(f"{us:.2f} ({100 * nbytes / bw / 1e3 / us:.1f}%, {base / us:.2f}x)")
                        ext.wo_set_pdl_policy(0)
                    except Exception as exc:  # noqa: BLE001 - a probe row
                        ext.wo_set_pdl_policy(0)
                        out.write(f"| {m}x{n}x{k} | {bits} | v{vid} | | {type(exc).__name__}: {str(exc)[:100]} |\n")
                        continue
                    name = f"v{vid} " + ("default" if vid == 0 else VARIANTS[vid][0])
                    flag = " BAD" if not err < 2e-2 else ""
                    plan = ext.wo_plan_info(m, n, k, bits, False, True, vid)
                    out.write(f"| {m}x{n}x{k} | {bits} | {name} | {'*' if vid == table else ''} | " + " | ".join(cells)
                              + f" | {plan} | {err:.2e}{flag} |\n")
                    out.flush()
            del packs, w16s
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
