#!/usr/bin/env python3
"""Session 31 probe (issue 12's M = 16 line): split direct weight-only launches with their partial sums added in a
thread block cluster through distributed shared memory (`ext.wo_set_cluster_reduce(1)`, wo_warp.cuh) against the
global workspace, counters and last-CTA pass (0, sessions 5-30).

    python3 probe_cluster.py OUT.md [--m 1,8,16] [--parts 0,1] [--shapes ...] [--bits 4,8]

For each (N, K), bits (int4 g128 symmetric, int8 per channel), M and variant: the output under both settings must
be the same bits (the same additions in the same order) and within 2e-2 of bf16 F.linear on
the dequantized weight; then the settings are timed in alternation (bench_common.alternating_time_us: batches of
20 calls behind a GPU sleep, 9 rounds, medians) on weight copies rotated past L2, with bf16 F.linear in the same
rotation. A probe, not a design.
"""
import argparse
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
from bench_common import L2_BYTES, alternating_time_us, copies_for, copy_bandwidth_gbps, cycler  # noqa: E402
from cutlass_gemm.ops.wo_heuristics import VARIANTS, select_variant  # noqa: E402
from cutlass_gemm.quant import WeightOnlyQuant, dequantize_packed, prepack  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

DIRECT = {1: [14, 23, 26], 8: [16, 17, 19, 25], 16: [18, 22, 24]}


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
    ap.add_argument("--parts", default="0,1")
    ap.add_argument("--shapes", default="8192x8192,4096x14336,28672x4096")
    ap.add_argument("--bits", default="4,8")
    args = ap.parse_args()
    ext = extension.load()
    parts = [int(v) for v in args.parts.split(",")]
    default_parts = ext.wo_set_cluster_reduce(-1)
    out = open(args.out, "w")
    bw = copy_bandwidth_gbps()
    out.write(f"{torch.cuda.get_device_name()}; copy bandwidth {bw:.0f} GB/s; bf16 x; int4 g128 / int8 per channel, "
              f"symmetric; us per call (% of the weight+scale floor, x bf16); library default cluster reduce {default_parts}\n\n")
    out.write("| M x N x K | bits | variant | table's | bf16 us | " + " | ".join(f"cluster {p}" for p in parts)
              + " | best | plan | rel err | same bits |\n|" + "---|" * (9 + len(parts)) + "\n")
    bad = 0
    for shape in args.shapes.split(","):
        n, k = map(int, shape.split("x"))
        for bits in [int(b) for b in args.bits.split(",")]:
            p, group = packed(n, k, bits)
            w16 = dequantize_packed(p, torch.bfloat16)
            nbytes = n * k * bits // 8 + p.scales.numel() * 2
            copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
            packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
            w16s = [w16] + [w16.clone() for _ in range(3)]
            for m in [int(v) for v in args.m.split(",")]:
                x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
                ref = F.linear(x, w16).float()
                table = select_variant(m, n, k, bits)
                for vid in sorted(set(DIRECT.get(m, []) + [table])):
                    if vid and m > VARIANTS[vid][1]:
                        continue
                    try:
                        outs = {}
                        for pp in parts:
                            ext.wo_set_cluster_reduce(pp)
                            outs[pp] = ext.wo_gemm(x, p.qweight, p.scales, None, None, bits, group, n, 0, vid)
                        ext.wo_set_cluster_reduce(default_parts)
                        same = all(torch.equal(outs[parts[0]], o) for o in outs.values())
                        err = ((outs[parts[0]].float() - ref).norm() / ref.norm()).item()
                        fns = [cycler([lambda w=w: F.linear(x, w) for w in w16s])]
                        for pp in parts:
                            nx = cycler([lambda q=q, s=s: ext.wo_gemm(x, q, s, None, None, bits, group, n, 0, vid)
                                         for q, s in packs])
                            fns.append(lambda pp=pp, nx=nx: (ext.wo_set_cluster_reduce(pp), nx()()))
                        base_nx = fns[0]
                        fns[0] = lambda: base_nx()()
                        times = alternating_time_us(fns)
                        ext.wo_set_cluster_reduce(default_parts)
                    except Exception as exc:  # noqa: BLE001 - a probe row
                        ext.wo_set_cluster_reduce(default_parts)
                        out.write(f"| {m}x{n}x{k} | {bits} | v{vid} | | {type(exc).__name__}: {str(exc)[:100]} |\n")
                        bad += 1
                        continue
                    base = times[0]
                    cells = [f"{us:.2f} ({100 * nbytes / bw / 1e3 / us:.1f}%, {base / us:.2f}x)" for us in times[1:]]
                    best = parts[min(range(len(parts)), key=lambda i: times[1 + i])]
                    flag = " BAD" if not err < 2e-2 else ""
                    bad += bool(flag) + (not same)
                    name = f"v{vid} " + ("default" if vid == 0 else VARIANTS[vid][0])
                    plan = ext.wo_plan_info(m, n, k, bits, False, True, vid)
                    out.write(f"| {m}x{n}x{k} | {bits} | {name} | {'*' if vid == table else ''} | {base:.2f} | "
                              + " | ".join(cells) + f" | {best} | {plan} | {err:.2e}{flag} | {same} |\n")
                    out.flush()
            del packs, w16s
            torch.cuda.empty_cache()
    out.write(f"\nrows failing a check: {bad}\n")
    print(open(args.out).read())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
