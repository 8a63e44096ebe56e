#!/usr/bin/env python3
"""Session 64 probe: a padded `scaled_mm` call writes the caller's `out` directly (cg_launch's m_padded, GEMM launcher
ABI 4: the kernel computes the padded rows and stores M), against session 63's form, which wrote a (rows, N) output
and copied its first M rows into `out` (session 63 call 3, set C: out= 1.045x on geometric mean, 0.84x at worst).

Per (M, N, K) where padded_rows pads: `scaled_mm` int8 and e4m3 (per-token x per-channel, bf16 out), arms
  force / force_out   padded wherever padded_rows pads (OP_PAD's bounds off), without / with out=
  rule / rule_out     where heuristics.OP_PAD pads (the library as shipped)
  nopad / nopad_out   CUTLASS_GEMM_PAD_ROWS=0
  own                 the caller's own padding (operands already in whole tiles, the output's first M rows kept)
CUDA graphs of 20 calls per arm replayed in alternation, 7 rounds, median (session 62's pad_ops.py helpers). Every
arm's output checked against force's (must agree bit for bit), and the rows of a poisoned buffer past each out= view
checked untouched.

    python pad_out.py OUT.json ROWS SHAPES        # e.g. 30,160 5120x13824,7168x7168 (N x K)
"""
import json
import math
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "session62" / "probe"))
import pad_ops as P  # noqa: E402  (session 62's probe: graph(), alternate(), forget(); it puts the repo on sys.path)

ABS = ("int8", "e4m3")
ARMS = ("force", "rule", "nopad")
RULE = P.H.OP_PAD[90]


def setting(arm):
    from cutlass_gemm.kernels.tile_rules import OpPadRule
    os.environ[P.PAD_ENV] = "0" if arm == "nopad" else "1"
    P.H.OP_PAD[90] = OpPadRule(0.0, 0) if arm == "force" else RULE
    P.forget()


def point(n, k, m, w):
    import torch
    import cutlass_gemm
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    graphs, samples, keep, untouched = {}, {}, [], {}
    for ab in ABS:
        a = (torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g) if ab == "int8"
             else torch.randn(m, k, device="cuda", generator=g).to(torch.float8_e4m3fn))
        sa = torch.rand(m, 1, device="cuda", generator=g) * 1e-2 + 1e-3
        rows = P.H.padded_rows(90, m, n, ab, "scaled", "none", k)
        a_own = torch.zeros(rows, k, device="cuda", dtype=torch.int8).view(a.dtype)
        a_own[:m] = a
        sa_own = torch.ones(rows, 1, device="cuda")
        sa_own[:m] = sa
        b, sb = w[ab], w["sb"]
        keep += [a, sa, a_own, sa_own]
        for arm in ARMS:
            setting(arm)
            graphs[f"{ab}_{arm}"], samples[f"{ab}_{arm}"] = P.graph(
                lambda: cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16))
            big = torch.full((m + 64, n), float("nan"), device="cuda", dtype=torch.bfloat16)
            out = big[:m]
            keep.append(big)
            graphs[f"{ab}_{arm}_out"], samples[f"{ab}_{arm}_out"] = P.graph(
                lambda: cutlass_gemm.scaled_mm(a, b, sa, sb, torch.bfloat16, out=out))
            untouched[f"{ab}_{arm}_out"] = big[m:]
        graphs[f"{ab}_own"], samples[f"{ab}_own"] = P.graph(
            lambda: cutlass_gemm.scaled_mm(a_own, b, sa_own, sb, torch.bfloat16))
        samples[f"{ab}_own"] = samples[f"{ab}_own"][:m]
    setting("rule")
    med, runs = P.alternate(graphs)
    diff = {name: float((s.float() - samples[name.split("_")[0] + "_force"].float()).abs().max())
            for name, s in samples.items()}
    past = {name: bool(torch.isnan(t).all()) for name, t in untouched.items()}
    del graphs
    torch.cuda.synchronize()
    del keep
    return med, runs, diff, past


def main(out_path, rows, shapes):
    import torch
    res = []
    for n, k in shapes:
        g = torch.Generator(device="cuda").manual_seed(n * 7 + k)
        w = {"int8": torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g).t(),
             "e4m3": torch.randn(n, k, device="cuda", generator=g).to(torch.float8_e4m3fn).t(),
             "sb": torch.rand(1, n, device="cuda", generator=g) * 1e-2 + 1e-3}
        for m in rows:
            pads = {ab: P.H.padded_rows(90, m, n, ab, "scaled", "none", k) for ab in ABS}
            if all(r == m for r in pads.values()):
                continue
            med, runs, diff, past = point(n, k, m, w)
            res.append(dict(m=m, n=n, k=k, rows_gemm=pads,
                            rows_rule={ab: P.H.op_padded_rows(90, m, n, ab, "scaled", "none", k) for ab in ABS},
                            us=med, runs=runs, max_abs_diff=diff, untouched_past_out=past))
            line = " ".join(f"{name} {t:.1f}" for name, t in med.items())
            print(f"{m}x{n}x{k}: {line} | diff {max(diff.values()):.3g} | past out untouched {all(past.values())}",
                  flush=True)
            torch.cuda.empty_cache()
        Path(out_path).write_text(json.dumps(res, indent=1))
    Path(out_path).write_text(json.dumps(res, indent=1))
    summary(res)


def summary(res):
    """Geometric means of unpadded / padded over the points (int8, e4m3), with and without out=."""
    for ab in ABS:
        pts = [r for r in res if r["rows_gemm"][ab] > r["m"]]
        for suffix in ("", "_out"):
            ratios = [r["us"][f"{ab}_nopad{suffix}"] / r["us"][f"{ab}_force{suffix}"] for r in pts]
            ruled = [r["us"][f"{ab}_nopad{suffix}"] / r["us"][f"{ab}_rule{suffix}"] for r in pts
                     if r["rows_rule"][ab] > r["m"]]
            gm = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")  # noqa: E731
            print(f"{ab}{suffix or '    '}: force {gm(ratios):.3f}x over {len(pts)} ({min(ratios, default=0):.2f}-"
                  f"{max(ratios, default=0):.2f}); rule-padded {gm(ruled):.3f}x over {len(ruled)} "
                  f"({min(ruled, default=0):.2f}-{max(ruled, default=0):.2f})")
        cost = sorted(r["us"][f"{ab}_force_out"] - r["us"][f"{ab}_force"] for r in pts)
        if cost:
            print(f"{ab}: out= over no out= (force), median {cost[len(cost) // 2]:.2f} us, {cost[0]:.2f}..{cost[-1]:.2f}")


if __name__ == "__main__":
    rows = [int(r) for r in sys.argv[2].split(",")]
    shapes = [tuple(int(v) for v in s.split("x")) for s in sys.argv[3].split(",")]
    main(sys.argv[1], rows, shapes)
