#!/usr/bin/env python3
"""Session 35 probe (session 33's, copied; only this paragraph and the defaults changed): the hand-off between the
small-M kernels and the SM90 mixed-input kernel at 33..64 rows, with session 35's 3 / 4 m-tile CTA shapes (variants
29-32 in call 1, 32-35 in call 2; of those only 32 and 34 were kept, so
the ids 29-31, 33 and 35 no longer exist in the committed code). Session 33's text follows.

The hand-off between the small-M kernels and the SM90 mixed-input kernel at 17..64 rows.

`MIXED_FROM_M = 17` (ops/wo_heuristics.py) comes from session 14's sweep, before the small-M kernels were launched as
programmatic dependents (sessions 21-22); call 3's harness timed the small-M mma kernel at M = 32 at 25.2 us (16 x
8192^2 class shape, bf16), under the mixed kernel's 27.2 us of call 2 (fp16). Here, in one process and in alternation:
bf16 `F.linear`, the layer with the small-M kernels only (`large_m_backend="dequant"`: TABLE's variant up to 64 rows),
the layer with the mixed copy (`"cutlass_mixed"`: the mixed kernel from MIXED_FROM_M rows), and the small-M variants
2 / 3 / 12 / 13 at their plans through the extension (`wo_gemm`). bf16 x, int4 g128 / int8 per channel, symmetric;
weight copies rotated past L2; every output checked against bf16 F.linear on the dequantized weight.

    python3 handoff.py OUT.md [--m 17,24,32,48,64] [--bits 4,8]
"""
import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
from bench_common import L2_BYTES, alternating_time_us, copies_for, copy_bandwidth_gbps, cycler, stamp  # noqa: E402

SHAPES = [(8192, 8192), (28672, 4096), (4096, 14336)]
VIDS = (3, 29, 30, 31, 32)


def main():
    from cutlass_gemm.nn import WeightOnlyLinear
    from cutlass_gemm.ops.wo_heuristics import VARIANTS
    from cutlass_gemm.quant import WeightOnlyQuant, dequantize_packed, prepack
    from cutlass_gemm.quant.prepack import LAYOUT_MIXED
    from cutlass_gemm.runtime import extension

    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--m", default="40,48,56,64")
    ap.add_argument("--bits", default="4,8")
    ap.add_argument("--shapes", default=",".join(f"{n}x{k}" for n, k in SHAPES), help="NxK,...")
    ap.add_argument("--vids", default=",".join(str(v) for v in VIDS))
    ap.add_argument("--mixed-op", action="store_true", help="also time the mixed-input kernel through the op")
    args = ap.parse_args()
    ext = extension.load()
    rows_m = [int(v) for v in args.m.split(",")]
    shapes = [tuple(int(d) for d in sh.split("x")) for sh in args.shapes.split(",")]
    vids = [int(v) for v in args.vids.split(",")]
    out = open(args.out, "w")
    bw = copy_bandwidth_gbps()
    out.write(f"{stamp()}\n\n{torch.cuda.get_device_name()}; copy bandwidth {bw:.0f} GB/s; bf16 x, symmetric; us per call "
              "(speedup over bf16 F.linear). `small` = the layer without the mixed copy (TABLE's small-M variant), "
              "`mixed` = the layer with it (the mixed kernel from MIXED_FROM_M rows), `mixop` = the mixed kernel through the op, "
              "vN = small-M variant N at its plan. rel err: the largest of the row's outputs against bf16 F.linear on the dequantized weight.\n\n")
    extra = ["mixop"] if args.mixed_op else []
    out.write("| M x N x K | bits | bf16 | small | mixed | " + " | ".join(extra + [f"v{v}" for v in vids])
              + " | fastest | max rel err |\n|" + "---|" * (7 + len(extra) + len(vids)) + "\n")
    for bits in [int(v) for v in args.bits.split(",")]:
        group = 128 if bits == 4 else None
        for n, k in shapes:
            g = torch.Generator(device="cuda").manual_seed(n + bits)
            half = 2 ** (bits - 1)
            q = torch.randint(-half, half, (n, k), generator=g, device="cuda", dtype=torch.int16)
            s = (torch.rand(n, k // (group or k), generator=g, device="cuda") * 0.01 / (1 if bits == 4 else 16) + 1e-3)
            p = prepack(WeightOnlyQuant(q, s.bfloat16(), None, bits, group))
            w16 = dequantize_packed(p, torch.bfloat16)
            nbytes = n * k * bits // 8 + p.scales.numel() * 2
            copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=8)
            small = [WeightOnlyLinear.from_packed(p) for _ in range(copies)]
            mixed = [WeightOnlyLinear.from_packed(p, large_m_backend="cutlass_mixed") for _ in range(copies)]
            raw = [(lay.qweight, lay.scales) for lay in small]
            c16 = copies_for(2 * n * k, target=4 * L2_BYTES, lo=2, hi=4)
            w16s = [w16] + [w16.clone() for _ in range(c16 - 1)]
            for m in rows_m:
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16, generator=g)
                ref = F.linear(x, w16).float()
                names = ["bf16", "small", "mixed"]
                fns = [cycler([lambda w=w: F.linear(x, w) for w in w16s]),
                       cycler([lambda l=l: l(x) for l in small]), cycler([lambda l=l: l(x) for l in mixed])]
                if args.mixed_op and n >= 4096:  # the mixed-input kernel itself, whatever the layer's hand-off
                    names.append("mixop")
                    fns.append(cycler([lambda l=l: torch.ops.cutlass_gemm.weight_only_mm(
                        x, l.qweight_mixed, l.scales_mixed, None, None, None, layout=LAYOUT_MIXED, bits=bits,
                        group_size=group or 0, n=n) for l in mixed]))
                for vid in vids:
                    if m > VARIANTS[vid][1]:
                        continue
                    splits = ext.wo_plan_info(m, n, k, bits, False, True, vid)[2]
                    names.append(f"v{vid}")
                    fns.append(cycler([lambda qq=qq, ss=ss, vid=vid, splits=splits:
                                       ext.wo_gemm(x, qq, ss, None, None, bits, group or 0, n, splits, vid)
                                       for qq, ss in raw]))
                err = 0.0
                for f in fns[1:]:
                    y = f()().float()
                    err = max(err, ((y - ref).norm() / ref.norm()).item())
                t = dict(zip(names, alternating_time_us([lambda f=f: f()() for f in fns])))
                best = min((v, k_) for k_, v in t.items() if k_ != "bf16")[1]
                cell = lambda key: f"{t[key]:.2f} ({t['bf16'] / t[key]:.2f}x)" if key in t else "-"  # noqa: E731
                out.write(f"| {m}x{n}x{k} | {bits} | {t['bf16']:.2f} | {cell('small')} | {cell('mixed')} | "
                          + " | ".join(cell(c) for c in extra + [f"v{v}" for v in vids])
                          + f" | {best} | {err:.1e}{' BAD' if err > 2e-2 else ''} |\n")
                out.flush()
            del small, mixed, raw, w16s
            torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
