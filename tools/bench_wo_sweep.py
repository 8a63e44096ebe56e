#!/usr/bin/env python3
"""Sweep every weight-only small-M kernel variant (runtime/csrc/wo_launch.cuh `kWoVariants`) on the GPU.

    python3 tools/bench_wo_sweep.py --out $OUT [--m 1,4,16,64] [--shapes 8192x8192,28672x4096,4096x14336]

For each (N, K) (N x K weight), weight format (int4 group 128 symmetric, int8 per channel) and M: bf16
`F.linear` (the baseline), `torch._weight_int4pack_mm` (int4 rows only) and every variant that serves M,
each through `ext.wo_gemm(..., variant)` on the same packed weight, its output checked against bf16
F.linear on the dequantized weight (relative Frobenius error, flagged above 5e-2) before it is timed.
Device time: bench_common.gpu_time_us (events around batches of 20 calls behind a GPU sleep, median of 7),
each call on the next of several copies of the weight (together > 4x L2), so weights stream from HBM.
% of floor = (weight + scale bytes) / measured copy bandwidth / time.

Writes $OUT/wo_sweep.md (all rows, the best variant per case marked), wo_sweep.json, and wo_table.py: the
`TABLE` rows for cutlass_gemm/ops/wo_heuristics.py (the fastest variant per bits / M / shape, with the
catch-all rows of the most frequent winner per bits and M bucket).
"""
import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_common import L2_BYTES, copies_for, copy_bandwidth_gbps, cycler, gpu_time_us, md_table, stamp  # noqa: E402

ERR_LIMIT = 5e-2


def _rel(y, ref):
    return ((y.float() - ref.float()).norm() / ref.float().norm().clamp_min(1e-30)).item()


def _quant(n, k, bits, group, seed):
    from cutlass_gemm.quant import WeightOnlyQuant, prepack
    g = torch.Generator(device="cuda").manual_seed(seed)
    half = 2 ** (bits - 1)
    q = torch.randint(-half, half, (n, k), generator=g, device="cuda", dtype=torch.int16)
    scale = (torch.rand(n, k // (group or k), generator=g, device="cuda") * 0.01 / (1 if bits == 4 else 16) + 1e-3)
    wq = WeightOnlyQuant(q, scale.bfloat16(), None, bits, group)
    return wq, prepack(wq)


def _time(calls, ref, first):
    err = _rel(first, ref)
    nxt = cycler(calls)
    return gpu_time_us(lambda: nxt()()), err


def sweep_case(ext, n, k, bits, ms, bw, rows):
    from cutlass_gemm.ops.wo_heuristics import VARIANTS
    from cutlass_gemm.quant import dequantize_packed
    group = 128 if bits == 4 else None
    wq, p = _quant(n, k, bits, group, seed=bits)
    w16 = dequantize_packed(p, torch.bfloat16)
    nbytes = n * k * bits // 8 + p.scales.numel() * 2
    floor_us = nbytes / bw / 1e3
    copies = copies_for(nbytes, target=4 * L2_BYTES, lo=2, hi=12)
    packs = [(p.qweight, p.scales)] + [(p.qweight.clone(), p.scales.clone()) for _ in range(copies - 1)]
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
        cases = [("bf16 F.linear", None, [lambda w=w: F.linear(x, w) for w in w16s])]
        if tiny is not None:
            cases.append(("torch._weight_int4pack_mm", None,
                          [lambda w=w: torch._weight_int4pack_mm(x, w, 128, tiny[1]) for w in tiny[0]]))
        for vid in [0] + sorted(VARIANTS):
            if vid and m > VARIANTS[vid][1]:
                continue
            cases.append((f"v{vid} " + ("default" if vid == 0 else VARIANTS[vid][0]), vid,
                          [lambda q=q, s=s, v=vid: ext.wo_gemm(x, q, s, None, None, bits, group or 0, n, 0, v)
                           for q, s in packs]))
        base = None
        for name, vid, calls in cases:
            try:
                us, err = _time(calls, ref, calls[0]())
            except Exception as exc:  # one broken variant must not end the sweep
                print(f"FAILED {m}x{n}x{k} int{bits} {name}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
                rows.append({"m": m, "n": n, "k": k, "bits": bits, "impl": name, "variant": vid, "us": None,
                             "error": f"{type(exc).__name__}: {str(exc)[:160]}"})
                continue
            if name == "bf16 F.linear":
                base = us
            plan = ext.wo_plan_info(m, n, k, bits, False, True, vid) if vid is not None else None
            row = {"m": m, "n": n, "k": k, "bits": bits, "impl": name, "variant": vid, "us": round(us, 2),
                   "x_bf16": round(base / us, 2) if base else None, "pct_floor": round(100 * floor_us / us, 1),
                   "floor_us": round(floor_us, 2), "rel_err": float(f"{err:.3g}"), "flag": err > ERR_LIMIT,
                   "plan": plan}
            rows.append(row)
            print(f"{m}x{n}x{k} int{bits} {name}: {us:.2f} us {row['x_bf16']}x {row['pct_floor']}% err {err:.2e}"
                  f"{' FLAGGED' if row['flag'] else ''} plan={plan}", file=sys.stderr, flush=True)
        torch.cuda.empty_cache()


def best_rows(rows):
    """Fastest correct variant per (bits, m, n, k)."""
    best = {}
    for r in rows:
        if r.get("variant") is None or r.get("us") is None or r["flag"]:
            continue
        key = (r["bits"], r["m"], r["n"], r["k"])
        if key not in best or r["us"] < best[key]["us"]:
            best[key] = r
    return best


def table_rows(best, ms):
    """wo_heuristics.TABLE rows: per bits, M buckets (previous measured M, this M]; exact shapes first, then
    a catch-all row with the variant that won most shapes of the bucket."""
    from cutlass_gemm.ops.wo_heuristics import variant_rows
    out = []
    for bits in (4, 8):
        for m in ms:
            exact = [(k4[2], k4[3], r["variant"]) for k4, r in sorted(best.items()) if k4[0] == bits and k4[1] == m]
            # a bucket row must serve every M in it: the variant measured at m serves M <= m by construction
            exact = [(n, k, v) for n, k, v in exact if variant_rows(v) >= m]
            out += [(bits, m, n, k, v) for n, k, v in exact]
            if exact:
                v = Counter(v for _, _, v in exact).most_common(1)[0][0]
                out.append((bits, m, None, None, v))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--m", default="1,4,16,64")
    ap.add_argument("--shapes", default="8192x8192,28672x4096,4096x14336", help="NxK list")
    ap.add_argument("--bits", default="4,8")
    args = ap.parse_args()
    from cutlass_gemm.runtime import extension
    ext = extension.build_extension()
    ms = sorted(int(v) for v in args.m.split(","))
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    bw = copy_bandwidth_gbps()
    print(f"copy bandwidth {bw:.0f} GB/s", file=sys.stderr, flush=True)
    rows = []
    for n, k in shapes:
        for bits in (int(b) for b in args.bits.split(",")):
            sweep_case(ext, n, k, bits, ms, bw, rows)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    best = best_rows(rows)
    (out / "wo_sweep.json").write_text(json.dumps({"stamp": stamp(), "bw_gbps": bw, "rows": rows}, indent=1))
    lines = [f"# weight-only variant sweep ({stamp()})", "",
             f"Copy bandwidth {bw:.0f} GB/s; floor = (weight + scale bytes) / bandwidth. bf16 x, symmetric weights; "
             "int4 group 128, int8 per channel. `*` = fastest wo_gemm variant of its case. plan = (M capacity, "
             "columns per CTA, splits, CTAs, smem bytes, threads).", ""]
    body = []
    for r in rows:
        key = (r["bits"], r["m"], r["n"], r["k"])
        star = "*" if best.get(key) is r else ""
        body.append([f"{r['m']}x{r['n']}x{r['k']}", f"int{r['bits']}", f"{r['impl']}{star}",
                     r["us"] if r["us"] is not None else r.get("error"), r.get("x_bf16", "-"), r.get("pct_floor", "-"),
                     r.get("rel_err", "-"), "FLAGGED" if r.get("flag") else "", r.get("plan") or ""])
    lines += md_table(["M x N x K", "w", "impl", "us", "x bf16", "% floor", "rel err", "flag", "plan"], body)
    (out / "wo_sweep.md").write_text("\n".join(lines) + "\n")
    table = table_rows(best, ms)
    (out / "wo_table.py").write_text("TABLE = (\n" + "".join(f"    {t!r},\n" for t in table) + ")\n")
    print("\n".join(lines[-len(body) - 2:]))
    print("TABLE rows for cutlass_gemm/ops/wo_heuristics.py:\n" + (out / "wo_table.py").read_text())


if __name__ == "__main__":
    main()
