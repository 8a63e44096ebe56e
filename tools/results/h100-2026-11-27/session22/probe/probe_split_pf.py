#!/usr/bin/env python3
"""Session 22 probe (issue 12's 3.3x at 1 x 8192^2 and 3.0x at M = 16, for the next session): the weight-only kernels
the table picks, with the split count forced (0 = the plan's) x the L2 prefetch budget of programmatic dependents
(`ext.pdl_set_prefetch_bytes`, 8 MB by default), int4 g128, bf16 x. Output checked against bf16 F.linear on the
dequantized weight first; device time by bench_common.gpu_time_us on weight copies rotated past L2. A probe.

    python3 probe_split_pf.py OUT.md
"""
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import L2_BYTES, copies_for, copy_bandwidth_gbps, cycler, gpu_time_us  # noqa: E402
from cutlass_gemm.ops.wo_heuristics import select_variant  # noqa: E402
from cutlass_gemm.quant import dequantize_packed  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402
from probe_wo22 import packed  # noqa: E402


def main():
    ext = extension.load()
    out = open(sys.argv[1], "w")
    bw = copy_bandwidth_gbps()
    pfs = (0, 4 << 20, 8 << 20, 12 << 20, 16 << 20)
    out.write(f"copy bandwidth {bw:.0f} GB/s; int4 g128 symmetric, bf16 x; us (% of floor); columns: prefetch budget\n\n")
    out.write("| M x N x K | variant | splits | plan | " + " | ".join(f"pf {p >> 20} MB" for p in pfs) + " |\n|"
              + "---|" * (4 + len(pfs)) + "\n")
    default_pf = ext.pdl_set_prefetch_bytes(-1)
    for (m, n, k) in ((1, 8192, 8192), (1, 4096, 14336), (16, 8192, 8192), (16, 4096, 14336)):
        p, group = packed(n, k, 4)
        w16 = dequantize_packed(p, torch.bfloat16)
        nbytes = n * k // 2 + p.scales.numel() * 2
        copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
        packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        ref = F.linear(x, w16).float()
        v = select_variant(m, n, k, 4)
        for sp in (0, 2, 3, 4, 6, 8):
            try:
                y = ext.wo_gemm(x, p.qweight, p.scales, None, None, 4, group, n, sp, v).float()
                err = ((y - ref).norm() / ref.norm()).item()
                cells = []
                for pf in pfs:
                    ext.pdl_set_prefetch_bytes(pf)
                    nx = cycler([lambda q=q, s=s: ext.wo_gemm(x, q, s, None, None, 4, group, n, sp, v) for q, s in packs])
                    us = gpu_time_us(lambda: nx()())
                    cells.append(f"{us:.2f} ({100 * nbytes / bw / 1e3 / us:.0f}%)")
                ext.pdl_set_prefetch_bytes(default_pf)
            except Exception as exc:  # noqa: BLE001 - a probe row
                ext.pdl_set_prefetch_bytes(default_pf)
                out.write(f"| {m}x{n}x{k} | v{v} | {sp} | {type(exc).__name__}: {str(exc)[:80]} |\n")
                continue
            flag = "" if err < 2e-2 else f" BAD {err:.1e}"
            out.write(f"| {m}x{n}x{k} | v{v} | {sp} | {ext.wo_plan_info(m, n, k, 4, False, True, v)} | "
                      + " | ".join(cells) + flag + " |\n")
            out.flush()
        del packs
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
