#!/usr/bin/env python3
"""Sweep SM90 mixed-input (weight-only, large-M) kernel configs on the GPU and write the selection table.

    python3 tools/generate_kernels.py --mixed --out /tmp/gen --compile --jobs 16 $(python3 tools/bench_mixed_sweep.py --names)
    python3 tools/bench_mixed_sweep.py --out $OUT [--m 16,...,4096] [--shapes 8192x8192,28672x4096,4096x14336]

For each weight format (bf16 x; int4 group 128 and int8 per channel, symmetric), (N, K) and M: bf16 `F.linear`
(the baseline), the small-M kernel the op takes at M <= 64 (`weight_only_linear` on the "wo_mma_sm80_v1" copy),
`torch._weight_int4pack_mm` (int4, M <= 256: it is 25x slower than bf16 above) and every candidate config,
each through `ops.weight_only.launch_mixed` (the op's own launch) on the "cutlass_mixed_sm90_v1" copy of the
same weight; every output is checked against bf16 F.linear on the dequantized weight (relative Frobenius
error, flagged above 5e-2) before it is timed. Device time: bench_common.gpu_time_us (events around batches
of 20 calls behind a GPU sleep, median of 7), each call on the next of several weight copies (together > 4x
L2). % of floor: weight + scale + x + out bytes at the measured copy rate (a bandwidth floor: at large M the
GEMM is compute-bound and the x bf16 column is the figure that matters).

Writes $OUT/mixed_sweep.md (all rows, the fastest mixed config per case marked), mixed_sweep.json, and
mixed_table.py: `SELECTION` rows for cutlass_gemm/kernels/mixed_input.py (per bits and M bucket, the config
with the least total time over the shapes).
"""
import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

ERR_LIMIT = 5e-2

#: (tile, cluster, schedule, scheduler) candidates: the default 128x128 tile, larger and clustered tiles for
#: large M (the weight read once per 256 tokens, x multicast over a 2x1 cluster: Machete's large-M shapes),
#: small token tiles with stream-K for M <= 128 (few tiles: K split over idle SMs).
CANDIDATES = (
    ((128, 16, 64), (1, 1, 1), "cooperative", "streamk"),
    ((128, 32, 64), (1, 1, 1), "cooperative", "streamk"),
    ((128, 64, 64), (1, 1, 1), "cooperative", "streamk"),
    ((128, 64, 64), (2, 1, 1), "cooperative", "persistent"),
    ((128, 128, 64), (1, 1, 1), "cooperative", "persistent"),
    ((128, 128, 64), (1, 1, 1), "cooperative", "streamk"),
    ((128, 128, 64), (2, 1, 1), "cooperative", "persistent"),
    ((128, 256, 64), (1, 1, 1), "cooperative", "persistent"),
    ((128, 256, 64), (2, 1, 1), "cooperative", "persistent"),
    ((256, 128, 64), (1, 1, 1), "cooperative", "persistent"),
    ((256, 128, 64), (2, 1, 1), "cooperative", "persistent"),
    ((64, 128, 64), (1, 1, 1), "pingpong", "persistent"),
    ((64, 256, 64), (1, 1, 1), "pingpong", "persistent"),
    # second round (session 14 call 2): at M 32..128 the x tile is re-read from L2 by every weight tile row
    # (8192 / 128 times at N = 8192), so fewer re-reads: 256-row weight tiles and/or x multicast over a 2x1 cluster
    ((256, 64, 64), (1, 1, 1), "cooperative", "streamk"),
    ((128, 64, 64), (2, 1, 1), "cooperative", "streamk"),
    ((256, 64, 64), (2, 1, 1), "cooperative", "streamk"),
    ((256, 32, 64), (2, 1, 1), "cooperative", "streamk"),
    ((128, 32, 64), (2, 1, 1), "cooperative", "streamk"),
    ((256, 128, 64), (1, 1, 1), "cooperative", "streamk"),
    ((128, 256, 64), (1, 2, 1), "cooperative", "persistent"),
    ((64, 256, 64), (2, 1, 1), "pingpong", "persistent"),
)
#: int8 weights: the default tile and the candidates most likely to matter
CANDIDATES_INT8 = tuple(CANDIDATES[i] for i in (2, 4, 6, 8, 10, 13, 15))
#: Third round (session 34): a 128-element K tile (two 128-byte TMA rows of x per stage: half the k-iterations,
#: twice the bytes per TMA copy of the weight); `--set tk128` times these beside the current SELECTION.
CANDIDATES_TK128 = (
    ((128, 32, 128), (2, 1, 1), "cooperative", "streamk"),
    ((128, 64, 128), (1, 1, 1), "cooperative", "streamk"),
    ((128, 64, 128), (2, 1, 1), "cooperative", "streamk"),
    ((256, 64, 128), (1, 1, 1), "cooperative", "streamk"),
    ((64, 64, 128), (1, 1, 1), "pingpong", "persistent"),
    ((64, 128, 128), (1, 1, 1), "pingpong", "persistent"),
    ((128, 128, 128), (1, 1, 1), "cooperative", "streamk"),
    ((128, 128, 128), (2, 1, 1), "cooperative", "persistent"),
    ((256, 128, 128), (1, 1, 1), "cooperative", "streamk"),
    ((128, 256, 128), (2, 1, 1), "cooperative", "persistent"),
)
CANDIDATES_TK128_INT8 = tuple(CANDIDATES_TK128[i] for i in (1, 6, 7, 9))


def configs(bits: int, which: str = "all"):
    """The candidates of width `bits`: "all" (rounds 1-2), or "tk128" (the current SELECTION rows, then round 3)."""
    from cutlass_gemm.kernels.mixed_input import SELECTION, MixedInputConfig
    if which == "tk128":
        cands = tuple(r[2:] for r in SELECTION if r[0] == bits)
        cands += CANDIDATES_TK128 if bits == 4 else CANDIDATES_TK128_INT8
    else:
        cands = CANDIDATES if bits == 4 else CANDIDATES_INT8
    return [MixedInputConfig(act_dtype="bf16", bits=bits, zero_point=False, tile=t, cluster=c, schedule=s, scheduler=sk)
            for t, c, s, sk in cands]


def _rel(y, ref):
    return ((y.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30)).item()


def _weights(n, k, bits, seed):
    import torch
    from cutlass_gemm.quant import WeightOnlyQuant, prepack
    group = 128 if bits == 4 else None
    g = torch.Generator(device="cuda").manual_seed(seed)
    half = 2 ** (bits - 1)
    q = torch.randint(-half, half, (n, k), generator=g, device="cuda", dtype=torch.int16)
    scale = torch.rand(n, k // (group or k), generator=g, device="cuda") * 0.01 / (1 if bits == 4 else 16) + 1e-3
    wq = WeightOnlyQuant(q, scale.bfloat16(), None, bits, group)
    return wq, prepack(wq), prepack(wq, "cutlass_mixed_sm90")


def sweep_case(n, k, bits, ms, bw, rows, which="all"):
    import torch
    import torch.nn.functional as F
    from bench_common import L2_BYTES, copies_for, cycler, gpu_time_us
    from cutlass_gemm.ops.weight_only import SMALL_M_MAX, launch_mixed, weight_only_linear
    from cutlass_gemm.quant import dequantize_packed
    wq, small, mixed = _weights(n, k, bits, seed=bits)
    group = wq.group_size or 0
    w16 = dequantize_packed(small, torch.bfloat16)
    wbytes = n * k * bits // 8 + mixed.scales.numel() * 2
    copies = copies_for(wbytes, target=4 * L2_BYTES, lo=2, hi=12)
    mixes = [mixed] + [_clone(mixed) for _ in range(copies - 1)]
    smalls = [small] + [_clone(small) for _ in range(copies - 1)]
    w16s = [w16] + [w16.clone() for _ in range(copies_for(2 * n * k, target=4 * L2_BYTES, lo=2, hi=4) - 1)]
    tiny = None
    if bits == 4:
        u = wq.q.to(torch.int32) + 8
        wp = torch._convert_weight_to_int4pack((u[:, ::2] << 4 | u[:, 1::2]).to(torch.uint8), 8)
        sz = torch.stack([wq.scale.t(), torch.zeros_like(wq.scale.t())], dim=-1).contiguous()
        tiny = ([wp] + [wp.clone() for _ in range(copies - 1)], sz)
    for m in ms:
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        ref = F.linear(x, w16)
        io = (m * k + m * n) * 2
        cases = [("bf16 F.linear", None, [lambda w=w: F.linear(x, w) for w in w16s])]
        if m <= SMALL_M_MAX:
            cases.append(("small-M kernel", None, [lambda p=p: weight_only_linear(x, p) for p in smalls]))
        if tiny is not None and m <= 256:
            cases.append(("torch._weight_int4pack_mm", None,
                          [lambda w=w: torch._weight_int4pack_mm(x, w, 128, tiny[1]) for w in tiny[0]]))
        for cfg in configs(bits, which):
            cases.append((cfg.name, cfg, [lambda p=p, c=cfg: launch_mixed(c, x, p.qweight, p.scales, None, None, group, n)
                                          for p in mixes]))
        base = None
        for name, cfg, calls in cases:
            try:
                err = _rel(calls[0](), ref)
                nxt = cycler(calls)
                us = gpu_time_us(lambda: nxt()())
            except Exception as exc:  # one broken config must not end the sweep
                print(f"FAILED {m}x{n}x{k} int{bits} {name}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                rows.append({"m": m, "n": n, "k": k, "bits": bits, "impl": name, "mixed": cfg is not None, "us": None,
                             "error": f"{type(exc).__name__}: {str(exc)[:160]}"})
                continue
            if name == "bf16 F.linear":
                base = us
            floor_us = (wbytes + io) / bw / 1e3
            row = {"m": m, "n": n, "k": k, "bits": bits, "impl": name, "mixed": cfg is not None, "us": round(us, 2),
                   "x_bf16": round(base / us, 3), "pct_floor": round(100 * floor_us / us, 1),
                   "rel_err": float(f"{err:.3g}"), "flag": err > ERR_LIMIT}
            rows.append(row)
            print(f"{m}x{n}x{k} int{bits} {name}: {us:.2f} us {row['x_bf16']}x {row['pct_floor']}% err {err:.2e}"
                  f"{' FLAGGED' if row['flag'] else ''}", file=sys.stderr, flush=True)
        del x, ref
        torch.cuda.empty_cache()


def _clone(p):
    import dataclasses
    return dataclasses.replace(p, qweight=p.qweight.clone(), scales=p.scales.clone())


def best_rows(rows):
    """Fastest correct mixed config per (bits, m, n, k)."""
    best = {}
    for r in rows:
        if not r.get("mixed") or r.get("us") is None or r["flag"]:
            continue
        key = (r["bits"], r["m"], r["n"], r["k"])
        if key not in best or r["us"] < best[key]["us"]:
            best[key] = r
    return best


def table_rows(rows, ms):
    """SELECTION rows (bits, m_max, config name): per bits and measured M (bucket (previous M, M]), the config
    with the least summed time over the shapes, among those correct at every shape."""
    total, seen = defaultdict(float), defaultdict(set)
    shapes = defaultdict(set)
    for r in rows:
        if r.get("mixed"):
            shapes[(r["bits"], r["m"])].add((r["n"], r["k"]))
        if not r.get("mixed") or r.get("us") is None or r["flag"]:
            continue
        key = (r["bits"], r["m"], r["impl"])
        total[key] += r["us"]
        seen[key].add((r["n"], r["k"]))
    out = []
    for bits in (4, 8):
        for m in ms:
            full = [(t, name) for (b, mm, name), t in total.items()
                    if b == bits and mm == m and seen[(b, mm, name)] == shapes[(bits, m)]]
            if full:
                out.append((bits, m, min(full)[1]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--names", action="store_true", help="print '--name CONFIG' for every candidate and exit")
    ap.add_argument("--m", default="1,4,16,32,64,128,256,512,1024,2048,4096")
    ap.add_argument("--shapes", default="8192x8192,28672x4096,4096x14336", help="NxK list")
    ap.add_argument("--bits", default="4,8")
    ap.add_argument("--set", default="all", choices=("all", "tk128"), help="candidate set (see configs())")
    args = ap.parse_args()
    bits_list = [int(b) for b in args.bits.split(",")]
    if args.names:
        print(" ".join(f"--name {c.name}" for b in bits_list for c in configs(b, args.set)))
        return
    if not args.out:
        ap.error("--out is required")
    from bench_common import copy_bandwidth_gbps, md_table, stamp
    ms = sorted(int(v) for v in args.m.split(","))
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    bw = copy_bandwidth_gbps()
    print(f"copy bandwidth {bw:.0f} GB/s", file=sys.stderr, flush=True)
    rows = []
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for bits in bits_list:
        for n, k in shapes:
            sweep_case(n, k, bits, ms, bw, rows, args.set)
            # what a run cut short by its time limit still returns
            (out / "mixed_sweep.partial.json").write_text(json.dumps({"bw_gbps": bw, "rows": rows}))
    best = best_rows(rows)
    (out / "mixed_sweep.json").write_text(json.dumps({"stamp": stamp(), "bw_gbps": bw, "rows": rows}, indent=1))
    lines = [f"# mixed-input config sweep ({stamp()})", "",
             f"Copy bandwidth {bw:.0f} GB/s. bf16 x, symmetric weights; int4 group 128, int8 per channel. floor = "
             "(weight + scales + x + out bytes) at the copy rate (bandwidth only). "
             "`*` = fastest mixed config of its case.", ""]
    body = []
    for r in rows:
        star = "*" if best.get((r["bits"], r["m"], r["n"], r["k"])) is r else ""
        body.append([f"{r['m']}x{r['n']}x{r['k']}", f"int{r['bits']}", f"{r['impl']}{star}",
                     r["us"] if r["us"] is not None else r.get("error"), r.get("x_bf16", "-"), r.get("pct_floor", "-"),
                     r.get("rel_err", "-"), "FLAGGED" if r.get("flag") else ""])
    lines += md_table(["M x N x K", "w", "impl", "us", "x bf16", "% floor", "rel err", "flag"], body)
    (out / "mixed_sweep.md").write_text("\n".join(lines) + "\n")
    table = table_rows(rows, ms)
    (out / "mixed_table.py").write_text("SELECTION = (\n" + "".join(f"    {t!r},\n" for t in table) + ")\n")
    print("\n".join(lines))
    print("SELECTION rows:\n" + (out / "mixed_table.py").read_text())


if __name__ == "__main__":
    main()
