#!/usr/bin/env python3
"""Session 50 probe: the W8A8 layers' call (`Int8Linear` / `Fp8Linear`, dynamic per-token, no bias: a Llama
projection) with the activation quantized into whole M tiles (kernels/heuristics.py padded_rows, the committed
rule, "pad") against the same call unpadded (PAD_ROWS emptied, "plain"), and bf16 F.linear, side by side in one
process. GPU time per call from CUDA graphs of 20 calls (bench_common.graph_time_us), two rounds, median; the outputs
of pad and plain compared bit for bit. Then the eager wall clock (host included, bench_common.wall_time_us) at a few
rows, where the padded call's extra rows cost nothing on the host but the GEMM is short.

    python pad_layer.py names          # kernels to build first
    python pad_layer.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import heuristics  # noqa: E402

SHAPES = [(8192, 8192), (28672, 4096), (4096, 4096), (7168, 2048)]  # (N, K)
ROWS = [17, 32, 48, 100, 132, 160, 192, 200, 260, 320, 400, 448, 520, 700, 1000]
WALL = [(32, 4096, 4096), (132, 4096, 4096), (32, 8192, 8192), (132, 8192, 8192)]  # (M, N, K)
PAD_ROWS = dict(heuristics.PAD_ROWS)


def names():
    out = set()
    for n, _ in SHAPES:
        for ab in ("int8", "e4m3"):
            for m in ROWS:
                for rows in (m, heuristics.padded_rows(90, m, n, ab)):
                    out.add(heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, rows, n, ab),
                                                   a_dtype=ab).name)
    return sorted(out)


def set_pad(on):
    from cutlass_gemm.ops import linear
    heuristics.PAD_ROWS = dict(PAD_ROWS) if on else {}
    linear._rows_cache.clear()


def main(out_path):
    import torch
    import torch.nn.functional as F
    from bench_common import graph_time_us, wall_time_us
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
                outs, times = {}, {"pad": [], "plain": []}
                for arm in ("pad", "plain"):
                    set_pad(arm == "pad")
                    layer(x)  # the plan (Python path), then the C++ call
                    outs[arm] = layer(x)
                    if arm == "pad":
                        rows = padded_rows_for(x, layer.weight)
                for _ in range(2):
                    for arm in ("pad", "plain"):
                        set_pad(arm == "pad")
                        times[arm].append(graph_time_us(lambda: layer(x)))
                set_pad(True)
                med = {a: statistics.median(v) for a, v in times.items()}
                row[ab] = dict(rows=rows, us=med, runs=times, bits_equal=bool(torch.equal(outs["pad"], outs["plain"])))
            bf.append(graph_time_us(lambda: F.linear(x, lin.weight)))
            row["bf16_us"] = statistics.median(bf)
            res.append(row)
            print(f"{m}x{n}x{k} bf16 {row['bf16_us']:.1f} | " + " | ".join(
                f"{ab} ->{r['rows']} plain {r['us']['plain']:.1f} pad {r['us']['pad']:.1f} "
                f"({r['us']['plain'] / r['us']['pad']:.2f}x, vs bf16 {row['bf16_us'] / r['us']['pad']:.2f}x) "
                f"eq {r['bits_equal']}" for ab in layers for r in [row[ab]]), flush=True)
    wall = []
    for m, n, k in WALL:
        lin = torch.nn.Linear(k, n, bias=False, device="cuda", dtype=torch.bfloat16)
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        for cls in (Int8Linear, Fp8Linear):
            layer = cls.from_float(lin)
            w = {}
            for arm in ("pad", "plain", "pad"):
                set_pad(arm == "pad")
                layer(x)
                w.setdefault(arm, []).append(wall_time_us(lambda: layer(x)))
            set_pad(True)
            w = {a: min(v) for a, v in w.items()}
            w["bf16"] = wall_time_us(lambda: F.linear(x, lin.weight))
            wall.append(dict(m=m, n=n, k=k, layer=cls.__name__, wall_us=w))
            print(f"wall {cls.__name__} {m}x{n}x{k}: " + " ".join(f"{a} {v:.1f}" for a, v in w.items()), flush=True)
    Path(out_path).write_text(json.dumps(dict(rows=res, wall=wall), indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
