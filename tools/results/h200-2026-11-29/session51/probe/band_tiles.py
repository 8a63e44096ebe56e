#!/usr/bin/env python3
"""Session 51 probe 2: which tile the padded W8A8 layer should run at 257..1024 rows, by K. Call 1 (sel_layer.py) found
the 128 x 128 pingpong tile (A) ahead of the 256 x 128 c1x2 cooperative one (B) at every shape with K <= 4096 but behind
it at 8192^2 where both make the same number of waves. Here every row count is already whole tiles of both (384 is
whole for A only: B then runs 512 rows, as the padded layer would), and the layer (`Int8Linear` / `Fp8Linear`, dynamic
per-token, no bias) runs each tile forced, from CUDA graphs (bench_common.graph_time_us), two rounds in alternation,
median, at shapes with K = 2048 .. 28672. Also the 64 x 128 c2x1 tile (C) against A at 256 rows (heuristics.FILL).

    python band_tiles.py names
    python band_tiles.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import heuristics  # noqa: E402

TileChoice = heuristics.TileChoice
A = TileChoice((128, 128, 128), (1, 1, 1), "pingpong")
B = TileChoice((256, 128, 128), (1, 2, 1), "cooperative")
C = TileChoice((64, 128, 128), (2, 1, 1), "pingpong")
SHAPES = [(8192, 8192), (28672, 8192), (10240, 8192), (16384, 8192), (8192, 28672), (4096, 14336), (8192, 14336),
          (14336, 4096), (12288, 4096), (28672, 4096), (7168, 2048), (24576, 2048)]  # (N, K)
ROWS = {256: ("A", "C"), 384: ("A", "B"), 512: ("A", "B"), 640: ("A", "B"), 768: ("A", "B"), 1024: ("A", "B")}
TILES = {"A": A, "B": B, "C": C}


def force(tile):
    """Every M from 17 rows takes `tile` (padded to it: heuristics.padded_rows follows choose_tile)."""
    heuristics.SELECTION[90] = [(16, TileChoice((64, 64, 128), (1, 1, 1), "pingpong")), (None, tile)]
    heuristics.NARROW = {}
    heuristics.FILL = {}


def names():
    return sorted({heuristics.make_config(90, "scaled", "bf16", t, a_dtype=ab).name
                   for t in TILES.values() for ab in ("int8", "e4m3")}
                  | {heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, 64, 4096, "int8"),
                                            a_dtype="int8").name})


def switch(tile):
    from cutlass_gemm.ops import gemm, linear
    from cutlass_gemm.runtime import fastpath
    force(tile)
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
        for m, arms in ROWS.items():
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            row = dict(m=m, n=n, k=k)
            for ab, layer in layers.items():
                times, rows, outs = {a: [] for a in arms}, {}, {}
                for rnd in range(2):
                    for arm in arms if rnd == 0 else arms[::-1]:
                        switch(TILES[arm])
                        layer(x)
                        outs[arm] = layer(x)
                        rows[arm] = padded_rows_for(x, layer.weight)
                        times[arm].append(graph_time_us(lambda: layer(x)))
                med = {a: statistics.median(v) for a, v in times.items()}
                row[ab] = dict(rows=rows, us=med, runs=times, equal=bool(torch.equal(*outs.values())))
            res.append(row)
            a0, a1 = arms
            print(f"{m}x{n}x{k} " + " | ".join(
                f"{ab} {a0}@{r['rows'][a0]} {r['us'][a0]:.1f} {a1}@{r['rows'][a1]} {r['us'][a1]:.1f} "
                f"({a0} {r['us'][a1] / r['us'][a0]:.2f}x) eq {r['equal']}" for ab in layers for r in [row[ab]]),
                flush=True)
        del layers, lin
        torch.cuda.empty_cache()
    Path(out_path).write_text(json.dumps(dict(rows=res), indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
