#!/usr/bin/env python3
"""Session 51 probe 3: heuristics.WAVES (the tile by wave cost at 129..1024 rows, K in the plan key) against session
50's table ("s50": the 128 x 128 tile at 257..1024 rows at every K, and at 129..256 rows where it makes >= 96 CTAs),
out of the sample band_tiles.py fitted it on: other shapes (a fused 70B gate/up, a tensor-parallel slice, Qwen2-7B's
down projection, K = 5120 / 13824) and row counts that are not whole tiles. The padded W8A8 layers (`Int8Linear` /
`Fp8Linear`, dynamic per-token, no bias) from CUDA graphs (bench_common.graph_time_us), two rounds in alternation,
median, bf16 F.linear beside them; where both tables pick the same tile only "new" is timed.

    python waves_layer.py names
    python waves_layer.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import heuristics  # noqa: E402

SHAPES = [(8192, 8192), (57344, 8192), (2560, 8192), (3584, 18944), (5120, 13824), (13824, 5120), (8192, 3584)]
ROWS = [150, 200, 300, 450, 600, 900]
NEW = heuristics._wave_choice


def _s50_choice(sm, choice, m, n, k):
    """Session 50's FILL rule, and no K rule."""
    t64, t128 = heuristics._T64, heuristics._T128
    if choice == t64 and m >= 129 and n > 0 and heuristics._ctas(t128, m, n) >= 96:
        return t128
    return choice


def set_table(arm):
    heuristics._wave_choice = NEW if arm == "new" else _s50_choice


def tile_of(arm, m, n, k, ab):
    set_table(arm)
    rows = heuristics.padded_rows(90, m, n, ab, k=k)
    t = heuristics.choose_tile(90, rows, n, ab, k)
    set_table("new")
    return rows, t


def names():
    out = set()
    for n, k in SHAPES:
        for ab in ("int8", "e4m3"):
            for m in ROWS:
                for arm in ("new", "s50"):
                    out.add(heuristics.make_config(90, "scaled", "bf16", tile_of(arm, m, n, k, ab)[1], a_dtype=ab).name)
    return sorted(out)


def switch(arm):
    from cutlass_gemm.ops import gemm, linear
    from cutlass_gemm.runtime import fastpath
    set_table(arm)
    linear._rows_cache.clear()
    gemm._plans.clear()
    ext = fastpath.module()
    if ext is not None:
        ext.clear_plans()


def main(out_path):
    import torch
    import torch.nn.functional as F
    from bench_common import graph_time_us
    from cutlass_gemm.nn import Fp8Linear, Int8Linear
    from cutlass_gemm.ops.linear import padded_rows_for
    res = []
    for n, k in SHAPES:
        lin = torch.nn.Linear(k, n, bias=False, device="cuda", dtype=torch.bfloat16)
        layers = {"int8": Int8Linear.from_float(lin), "e4m3": Fp8Linear.from_float(lin)}
        for m in ROWS:
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            row = dict(m=m, n=n, k=k)
            bf = [graph_time_us(lambda: F.linear(x, lin.weight))]
            for ab, layer in layers.items():
                plan = {arm: tile_of(arm, m, n, k, ab) for arm in ("new", "s50")}
                arms = ("new", "s50") if plan["new"] != plan["s50"] else ("new",)
                times, outs, rows = {a: [] for a in arms}, {}, {}
                for rnd in range(2):
                    for arm in arms if rnd == 0 else arms[::-1]:
                        switch(arm)
                        layer(x)
                        outs[arm] = layer(x)
                        rows[arm] = padded_rows_for(x, layer.weight)
                        times[arm].append(graph_time_us(lambda: layer(x)))
                switch("new")
                med = {a: statistics.median(v) for a, v in times.items()}
                tiles = {a: "x".join(map(str, plan[a][1].tile[:2])) for a in plan}
                row[ab] = dict(rows=rows, tiles=tiles, us=med, runs=times,
                               equal=bool(torch.equal(outs["new"], outs.get("s50", outs["new"]))))
            bf.append(graph_time_us(lambda: F.linear(x, lin.weight)))
            row["bf16_us"] = statistics.median(bf)
            res.append(row)
            print(f"{m}x{n}x{k} bf16 {row['bf16_us']:.1f} | " + " | ".join(
                f"{ab} new {r['tiles']['new']}@{r['rows']['new']} {r['us']['new']:.1f}"
                + (f" s50 {r['tiles']['s50']}@{r['rows']['s50']} {r['us']['s50']:.1f} "
                   f"({r['us']['s50'] / r['us']['new']:.2f}x)" if 's50' in r['us'] else " (same tile)")
                + f" vs bf16 {row['bf16_us'] / r['us']['new']:.2f}x eq {r['equal']}"
                for ab in layers for r in [row[ab]]), flush=True)
        del layers, lin
        torch.cuda.empty_cache()
    Path(out_path).write_text(json.dumps(dict(rows=res), indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
