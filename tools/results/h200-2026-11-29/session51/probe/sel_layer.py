#!/usr/bin/env python3
"""Session 51 probe: the W8A8 layers' call (`Int8Linear` / `Fp8Linear`, dynamic per-token, no bias: a Llama
projection), both padded into whole M tiles, with session 50's new SM90 tile table ("new": SELECTION's 1024-row row,
the 128 x 128 pingpong tile, and FILL from 129 rows) against the table before it ("old": without both), with bf16
F.linear beside them, side by side in one process. GPU time per call from CUDA graphs of 20 calls
(bench_common.graph_time_us), two rounds per arm in alternation, median; outputs of the arms compared to each other
(relative norm of the difference reported: the tiles accumulate each output in the same K order, so it is expected
to be 0).
Then `host`: where an eager call's host time goes, at 32 x 4096^2 (GPU time ~5 us, so a call's wall clock is its host
time): F.linear, the layer, its forward, ops.w8a8_linear, the extension's w8a8_linear, quant_rows and run alone, and
torch.profiler's CPU-side table of 100 layer calls.

    python sel_layer.py names          # kernels to build first
    python sel_layer.py run OUT.json
    python sel_layer.py host OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import heuristics  # noqa: E402

SHAPES = [(8192, 8192), (28672, 4096), (14336, 4096), (6144, 4096), (4096, 4096), (7168, 2048)]  # (N, K)
ROWS = [132, 160, 200, 256, 260, 320, 384, 448, 520, 640, 700, 768, 1000]
NEW_SEL = list(heuristics.SELECTION[90])
NEW_FILL = dict(heuristics.FILL)
OLD_SEL = [r for r in NEW_SEL if r[0] != 1024]


def set_table(arm):
    heuristics.SELECTION[90] = list(NEW_SEL if arm == "new" else OLD_SEL)
    heuristics.FILL = dict(NEW_FILL) if arm == "new" else {}


def names():
    out = set()
    for arm in ("new", "old"):
        set_table(arm)
        for n, _ in SHAPES:
            for ab in ("int8", "e4m3"):
                for m in ROWS:
                    rows = heuristics.padded_rows(90, m, n, ab)
                    out.add(heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, rows, n, ab),
                                                   a_dtype=ab).name)
    set_table("new")
    return sorted(out)


def switch(arm):
    """The table for `arm`, and every memo that holds a choice made under the other one."""
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
                times, outs, rows, tiles = {"new": [], "old": []}, {}, {}, {}
                for rnd in range(2):
                    for arm in ("new", "old") if rnd == 0 else ("old", "new"):
                        switch(arm)
                        layer(x)  # the plan (Python path), then the C++ call
                        outs[arm] = layer(x)
                        rows[arm] = padded_rows_for(x, layer.weight)
                        t = heuristics.choose_tile(90, rows[arm], n, ab)
                        tiles[arm] = f"{t.tile[0]}x{t.tile[1]} c{t.cluster[0]}x{t.cluster[1]} {t.schedule}"
                        times[arm].append(graph_time_us(lambda: layer(x)))
                switch("new")
                med = {a: statistics.median(v) for a, v in times.items()}
                d = (outs["new"].float() - outs["old"].float()).norm() / outs["old"].float().norm()
                row[ab] = dict(rows=rows, tiles=tiles, us=med, runs=times, rel_diff=float(d))
            bf.append(graph_time_us(lambda: F.linear(x, lin.weight)))
            row["bf16_us"] = statistics.median(bf)
            res.append(row)
            print(f"{m}x{n}x{k} bf16 {row['bf16_us']:.1f} | " + " | ".join(
                f"{ab} ->{r['rows']['new']}/{r['rows']['old']} new {r['us']['new']:.1f} old {r['us']['old']:.1f} "
                f"({r['us']['old'] / r['us']['new']:.2f}x, vs bf16 {row['bf16_us'] / r['us']['new']:.2f}x) "
                f"d {r['rel_diff']:.1e}" for ab in layers for r in [row[ab]]), flush=True)
    Path(out_path).write_text(json.dumps(dict(rows=res), indent=1))


def host(out_path):
    import torch
    import torch.nn.functional as F
    from bench_common import wall_time_us
    from cutlass_gemm import ops
    from cutlass_gemm.nn import Int8Linear
    from cutlass_gemm.runtime import fastpath
    ext = fastpath.module()
    m, n, k = 32, 4096, 4096
    lin = torch.nn.Linear(k, n, bias=False, device="cuda", dtype=torch.bfloat16)
    layer = Int8Linear.from_float(lin)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    rows = ops.linear._eager_rows(x, layer.weight, "none")
    layer(x), layer(x)
    q, s, _, _ = ext.quant_rows(x, 0, torch.int8, None, None, None, None, None, 0.0, rows)
    wt = layer.weight.t()
    cases = {
        "F.linear bf16": lambda: F.linear(x, lin.weight),
        "layer(x)": lambda: layer(x),
        "layer.forward(x)": lambda: layer.forward(x),
        "ops.w8a8_linear": lambda: ops.w8a8_linear(x, layer.weight, layer.weight_scale, None),
        "ext.w8a8_linear": lambda: ext.w8a8_linear(x, layer.weight, layer.weight_scale, None, 0, None, None, None,
                                                   torch.bfloat16, 0, rows),
        "ext.quant_rows": lambda: ext.quant_rows(x, 0, torch.int8, None, None, None, None, None, 0.0, rows),
        "ext.run (GEMM)": lambda: ext.run(0, q, wt, s, layer.weight_scale, torch.bfloat16, None, None, None, None),
        "torch.empty x3": lambda: (torch.empty(rows, k, dtype=torch.int8, device="cuda"),
                                   torch.empty(rows, 1, device="cuda"), torch.empty(rows, n, device="cuda")),
        "x.abs() (one launch)": lambda: x.abs(),
    }
    out = {}
    for _ in range(2):
        for name, fn in cases.items():
            out.setdefault(name, []).append(wall_time_us(fn, calls=500))
    out = {a: min(v) for a, v in out.items()}
    for a, v in out.items():
        print(f"host {a}: {v:.2f} us", flush=True)
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(100):
            layer(x)
        torch.cuda.synchronize()
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25)
    print(table, flush=True)
    Path(out_path).write_text(json.dumps(dict(shape=[m, n, k], wall_us=out, profile=table), indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    elif sys.argv[1] == "host":
        host(sys.argv[2])
    else:
        main(sys.argv[2])
