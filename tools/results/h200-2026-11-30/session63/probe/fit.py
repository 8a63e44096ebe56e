#!/usr/bin/env python3
"""Session 63: fit the ops' row-padding rules (tile_rules.OpPadRule: heuristics.OP_PAD[90] for scaled_mm,
blockwise_heuristics.OP_PAD_E4M3 for scaled_mm_blockwise) on a pad_pdl.py sweep (arms force / nopad / own).

For every point where padded_rows pads, the rule's choice costs the padded call's time ("force") where it pads and the
unpadded one's ("nopad") where it does not; the fit keeps the grid point with the best geometric mean of nopad / chosen
over the points (scaled_mm: int8 and e4m3 together), its worst point the tie-break, then the grid's order (simplest
first). Prints the ten best and the oracle (padding exactly where it won), writes {"rules": {...}, "table": ...}.

    python fit.py SWEEP.json [SWEEP2.json ...] OUT.json
"""
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "session62" / "probe"))
import pad_ops as P  # noqa: E402  (puts the repository on sys.path)
from cutlass_gemm.kernels.tile_rules import OpPadRule, column_units  # noqa: E402

GRID_EMPTY = (0.75, 0.6, 0.5, 0.4, 0.3, 0.2)
GRID_NK = (1 << 24, 1 << 23, 1 << 22)
GRID_WIDE = (0, 10_000_000, 20_000_000, 30_000_000, 40_000_000)


def points(rows):
    """(family, m, n, k, unit, column units, nopad us, padded us) wherever padded_rows pads."""
    out = []
    for r in rows:
        m, n, k, us = r["m"], r["n"], r["k"], r["us"]
        for ab in ("int8", "e4m3"):
            if r["rows_gemm"][ab] > m:
                c = P.H.choose_tile(90, m, n, ab, k)
                out.append(("scaled", m, n, k, c.tile[0] * c.cluster[0], column_units(c.tile, c.cluster, n),
                            us[f"{ab}_nopad"], us[f"{ab}_force"]))
        if r["rows_blockwise"] > m:
            tile, cluster = P.B._selected_row(m, "e4m3", n)[:2]
            out.append(("blockwise", m, n, k, tile[0] * cluster[0], column_units(tile, cluster, n), us["bw_nopad"],
                        us["bw_force"]))
    return out


def score(rule, pts):
    logs, worst, moved = [], 9.0, 0
    for _, m, n, k, unit, cols, nopad, padded in pts:
        pad = rule.pads(m, unit, n, k, cols)
        t = padded if pad else nopad
        logs.append(math.log(nopad / t))
        worst, moved = min(worst, nopad / t), moved + pad
    return math.exp(sum(logs) / len(logs)), worst, moved, len(pts)


def fit(pts):
    table = []
    for e in GRID_EMPTY:
        for nk in GRID_NK:
            for wide in GRID_WIDE:
                rule = OpPadRule(e, nk, 256 if wide else 0, wide)
                geo, worst, moved, total = score(rule, pts)
                table.append({"rule": rule.__dict__, "geo": round(geo, 4), "worst": round(worst, 3), "moved": moved,
                              "points": total})
    # best geometric mean (to 3 decimals), then the better worst point; the grid's order breaks ties (stable sort)
    table.sort(key=lambda t: (-round(t["geo"], 3), -t["worst"]))
    oracle = math.exp(sum(math.log(nopad / min(nopad, padded)) for *_, nopad, padded in pts) / len(pts))
    return table, oracle


def main(paths, out):
    rows = [r for p in paths for r in json.loads(Path(p).read_text())]
    pts = points(rows)
    result = {"rules": {}, "table": {}, "oracle": {}}
    for fam in ("scaled", "blockwise"):
        table, oracle = fit([p for p in pts if p[0] == fam])
        result["rules"][fam] = table[0]["rule"]
        result["table"][fam] = table[:10]
        result["oracle"][fam] = round(oracle, 4)
        print(f"{fam}: oracle {oracle:.3f}")
        for t in table[:10]:
            print(f"  {t['rule']} geo {t['geo']:.3f} worst {t['worst']:.2f} moved {t['moved']}/{t['points']}")
    Path(out).write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:-1], sys.argv[-1])
