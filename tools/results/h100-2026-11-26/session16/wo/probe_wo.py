#!/usr/bin/env python3
"""Session 16 probe (issue 12's decode lines): the weight-only small-M kernel at M = 1 and 16, int4 g128 bf16,
every variant that serves M x split-K counts (0 = the plan's own), through ext.wo_gemm on rotated weight copies,
each output checked against bf16 F.linear on the dequantized weight first. `profile` mode instead runs the
layer's default variant a few times for Nsight Compute.

    python3 probe_wo.py time OUT.md | python3 probe_wo.py profile M N K
"""
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
from bench_common import L2_BYTES, copies_for, copy_bandwidth_gbps, cycler, gpu_time_us  # noqa: E402
from cutlass_gemm.ops.wo_heuristics import VARIANTS, select_variant  # noqa: E402
from cutlass_gemm.quant import WeightOnlyQuant, dequantize_packed, prepack  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402


def packed(n, k):
    g = torch.Generator(device="cuda").manual_seed(4)
    q = torch.randint(-8, 8, (n, k), generator=g, device="cuda", dtype=torch.int16)
    s = torch.rand(n, k // 128, generator=g, device="cuda") * 0.01 + 1e-3
    return prepack(WeightOnlyQuant(q, s.bfloat16(), None, 4, 128))


def main():
    ext = extension.load()
    if sys.argv[1] == "profile":
        m, n, k = map(int, sys.argv[2:5])
        p = packed(n, k)
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        v = select_variant(m, n, k, 4)
        for _ in range(5):
            ext.wo_gemm(x, p.qweight, p.scales, None, None, 4, 128, n, 0, v)
        torch.cuda.synchronize()
        print(f"profiled {m}x{n}x{k} variant {v} plan {ext.wo_plan_info(m, n, k, 4, False, True, v)}")
        return
    out = open(sys.argv[2], "w")
    bw = copy_bandwidth_gbps()
    out.write(f"copy bandwidth {bw:.0f} GB/s; int4 g128, bf16 x; us = bench_common.gpu_time_us on rotated weight copies\n\n")
    out.write("| M x N x K | variant | splits asked | automatic plan (rows, bn, splits, CTAs, smem, threads) | us | % of floor | x bf16 |\n|---|---|---|---|---|---|---|\n")
    for n, k in ((8192, 8192), (28672, 4096), (4096, 14336)):
        p = packed(n, k)
        w16 = dequantize_packed(p, torch.bfloat16)
        nbytes = n * k // 2 + p.scales.numel() * 2
        copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
        packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
        w16s = [w16] + [w16.clone() for _ in range(3)]
        for m in (1, 16):
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            ref = F.linear(x, w16).float()
            nxt = cycler([lambda w=w: F.linear(x, w) for w in w16s])
            base = gpu_time_us(lambda: nxt()())
            out.write(f"| {m}x{n}x{k} | bf16 F.linear | | | {base:.2f} | | 1.00 |\n")
            dflt = select_variant(m, n, k, 4)
            for vid in ((0, 1, 5, 6, 7, 8, 9) if m == 1 else (0, 1, 4, 10, 11)):
                for sp in (0, 2, 4, 8, 16):
                    try:
                        y = ext.wo_gemm(x, p.qweight, p.scales, None, None, 4, 128, n, sp, vid).float()
                        err = ((y - ref).norm() / ref.norm()).item()
                        if not err < 2e-2:
                            out.write(f"| {m}x{n}x{k} | v{vid} | {sp} | | BAD err {err:.2e} | | |\n")
                            continue
                        nxt = cycler([lambda q=q, s=s: ext.wo_gemm(x, q, s, None, None, 4, 128, n, sp, vid) for q, s in packs])
                        us = gpu_time_us(lambda: nxt()())
                    except Exception as exc:  # noqa: BLE001 - a probe row, not a product path
                        out.write(f"| {m}x{n}x{k} | v{vid} | {sp} | | {type(exc).__name__}: {str(exc)[:80]} | | |\n")
                        continue
                    plan = ext.wo_plan_info(m, n, k, 4, False, True, vid)
                    name = f"v{vid}" + (" (layer's)" if vid == dflt else "") + ("" if vid == 0 else f" {VARIANTS[vid][0]}")
                    out.write(f"| {m}x{n}x{k} | {name} | {sp} | {plan} | {us:.2f} | {100 * nbytes / bw / 1e3 / us:.1f} | {base / us:.2f} |\n")
                    out.flush()
        del packs, w16s
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
