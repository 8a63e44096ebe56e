#!/usr/bin/env python3
"""Session 63, after call 2 (on this machine, no GPU): the rule form heuristics.OP_PAD has now, fitted on call 2's set A
and checked on its set B and call 1's points. A point: an int8 / e4m3 `scaled_mm` call whose padded_rows pads; its
time under a rule is the padded call's ("force") where the rule pads, the unpadded one's ("nopad") elsewhere; a grid
point's score is the geometric mean of nopad / that time over set A, its worst point the tie-break.

  fetch  = out-of-bounds rows of the unpadded kernel's last M unit x K x column units (millions of elements)
  copied = (M + padded rows) x K (millions of bytes)
  pad where empty share >= e, fetch >= ratio x copied, fetch >= x0, and (256-row units) fetch >= wide

    python fit_fetch.py [--blockwise]   # the 15 best on A with their scores on B and call 1, and the oracles
                                        # (--blockwise: scaled_mm_blockwise's points, bw_* arms)
"""
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "session62" / "probe"))
import pad_ops as P  # noqa: E402  (puts the repository on sys.path)
from cutlass_gemm.kernels.tile_rules import column_units  # noqa: E402


BLOCKWISE = "--blockwise" in sys.argv


def load(path):
    out = []

    def add(m, n, k, rows, tile, cluster, arm, u):
        unit = tile[0] * cluster[0]
        oob = (-m) % unit
        out.append(dict(unit=unit, oob=oob, X=oob * k * column_units(tile, cluster, n) / 1e6,
                        copy=(m + rows) * k / 1e6, nopad=u[f"{arm}_nopad"], force=u[f"{arm}_force"]))
    for r in json.loads(Path(path).read_text()):
        m, n, k, u = r["m"], r["n"], r["k"], r["us"]
        if BLOCKWISE:
            if r["rows_blockwise"] > m:
                tile, cluster = P.B._selected_row(m, "e4m3", n)[:2]
                add(m, n, k, r["rows_blockwise"], tile, cluster, "bw", u)
            continue
        for ab in ("int8", "e4m3"):
            if r["rows_gemm"][ab] > m:
                c = P.H.choose_tile(90, m, n, ab, k)
                add(m, n, k, r["rows_gemm"][ab], c.tile, c.cluster, ab, u)
    return out


def score(rule, pts):
    logs, worst, moved = [], 9.0, 0
    for p in pts:
        pad = rule(p)
        t = p["force"] if pad else p["nopad"]
        logs.append(math.log(p["nopad"] / t))
        worst, moved = min(worst, p["nopad"] / t), moved + pad
    return math.exp(sum(logs) / len(logs)), worst, moved, len(pts)


def main():
    a, b = load(HERE.parent / "call2" / "pad_pdl2a.json"), load(HERE.parent / "call2" / "pad_pdl2b.json")
    c1 = load(HERE.parent / "call1" / "pad_pdl1.json")
    oracle = lambda p: p["force"] < p["nopad"]  # noqa: E731
    print("oracle A %.3f B %.3f call1 %.3f" % (score(oracle, a)[0], score(oracle, b)[0], score(oracle, c1)[0]))
    res = []
    for e in (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.75):
        for ratio in (0, 0.5, 1, 1.5, 2, 3, 4, 6):
            for wide in (0, 20, 30, 40):
                for x0 in (0, 5, 10, 20, 30):
                    def rule(p, e=e, ratio=ratio, wide=wide, x0=x0):
                        return (p["oob"] >= e * p["unit"] and p["X"] >= ratio * p["copy"] and p["X"] >= x0
                                and not (wide and p["unit"] >= 256 and p["X"] < wide))
                    sa = score(rule, a)
                    res.append((round(sa[0], 3), sa[1], (e, ratio, wide, x0), sa, score(rule, b), score(rule, c1)))
    res.sort(key=lambda t: (-t[0], -t[1]))  # stable: the grid's order breaks ties
    for _, _, params, sa, sb, sc in res[:15]:
        print(params, "A %.3f w%.2f n%d/%d" % sa, "B %.3f w%.2f n%d/%d" % sb, "call1 %.3f w%.2f n%d/%d" % sc)


if __name__ == "__main__":
    main()
