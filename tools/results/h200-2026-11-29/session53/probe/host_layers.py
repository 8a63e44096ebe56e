#!/usr/bin/env python3
"""Session 53 probe: the eager host time of the weight-only and per-block layers (and the W8A8 layer as a control), run
with the code under test ("new") and with 4b1c414's package ("old", on PYTHONPATH), alternated, in separate processes on
one machine. The host's speed varies between processes (up to 1.8x in session 52), so each process reports its
layer's wall clock as a ratio to bf16 F.linear's on the same input, measured beside it.

`run LABEL OUT.json` measures, in one process:
- per layer call: seven interleaved rounds of 200 back-to-back calls of the layer and of bf16 F.linear, the least of
  each (bench_common.wall_time_us; the host's noise only adds), and the GPU time of both from a CUDA graph;
- that the eager output equals the layer's registered-op path (the same forward under a no-op TorchFunctionMode,
  which turns the eager C++ entries off) bit for bit;
- per forward of a small eager model: 4 blocks of x + o(v(x)) and y + down(silu(gate(y)) * up(y)) at hidden 4096,
  intermediate 11008 (Llama-7B's projection shapes, no attention), 1 and 16 tokens, bf16 beside w4a16, w8a16,
  fp8-block128 and w8a8-int8-block128.

    python host_layers.py names                      # kernels to build first
    python host_layers.py run LABEL OUT.json
    python host_layers.py compare A.json B.json ...   # (runs here, no GPU)
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
if "cutlass_gemm" not in sys.modules and not any("old53" in p for p in sys.path):
    sys.path.insert(0, str(ROOT))

H, I, BLOCKS = 4096, 11008, 4
CASES = [  # (label, kind, options, bias, x shape, N)
    ("w4a16 g128 1x4096", "wo", dict(bits=4, group_size=128), False, (1, H), H),
    ("w4a16 g128 1x1x4096 (3-D)", "wo", dict(bits=4, group_size=128), False, (1, 1, H), H),
    ("w4a16 g128 +bias 1x4096", "wo", dict(bits=4, group_size=128), True, (1, H), H),
    ("w4a16 g128 zero point 1x4096", "wo", dict(bits=4, group_size=128, zero_point=True), False, (1, H), H),
    ("w4a16 g128 16x4096", "wo", dict(bits=4, group_size=128), False, (16, H), H),
    ("w4a16 g128 1x4096->11008", "wo", dict(bits=4, group_size=128), False, (1, H), I),
    ("w8a16 per channel 1x4096", "wo", dict(bits=8, group_size=None), False, (1, H), H),
    ("fp8-block128 1x4096 (GEMV)", "fp8b", {}, False, (1, H), H),
    ("fp8-block128 16x4096 (GEMV)", "fp8b", {}, False, (16, H), H),
    ("fp8-block128 200x4096 (CUTLASS, padded)", "fp8b", {}, False, (200, H), H),
    ("int8-block128 1x4096 (GEMV)", "i8b", {}, False, (1, H), H),
    ("int8-block128 200x4096 (CUTLASS)", "i8b", {}, False, (200, H), H),
    ("w8a8 int8 dynamic 32x4096 (control)", "w8a8", {}, False, (32, H), H),
]
SCHEMES = ("w4a16", "w8a16", "fp8-block128", "w8a8-int8-block128")


def names():
    from cutlass_gemm.kernels import blockwise_heuristics as bh, heuristics
    out = set()
    for _, kind, _, _, shape, n in CASES:
        m = shape[0] * (shape[1] if len(shape) == 3 else 1)
        if kind in ("fp8b", "i8b") and m > 16:
            ab = "e4m3" if kind == "fp8b" else "s8"
            rows = bh.padded_rows(m, ab, n)
            out.add(bh.select_config("bf16", rows, "none", bh.layer_sfa_major(rows, ab), ab, n).name)
        if kind == "w8a8":
            rows = heuristics.padded_rows(90, m, n, "int8", k=H)
            out.add(heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, rows, n, "int8", H)).name)
    return sorted(out)


def make(kind, opts, lin):
    from cutlass_gemm import nn as cnn
    if kind == "wo":
        return cnn.WeightOnlyLinear.from_float(lin, **opts)
    if kind == "fp8b":
        return cnn.Fp8BlockLinear.from_float(lin)
    if kind == "i8b":
        return cnn.Int8BlockLinear.from_float(lin, block_size=128)
    return cnn.Int8Linear.from_float(lin, act="dynamic")


def run(label, out_path):
    import copy
    import cutlass_gemm  # first: tools/bench_common.py puts the repository root on sys.path
    import torch
    import torch.nn.functional as F
    from bench_common import graph_time_us, wall_time_us

    class Plain(torch.overrides.TorchFunctionMode):  # any TorchFunctionMode turns the eager C++ entries off
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    torch.manual_seed(0)
    res = dict(label=label, package=str(Path(cutlass_gemm.__file__).parent), layers={}, model={})
    print(f"{label}: package {res['package']}", flush=True)
    for name, kind, opts, bias, shape, n in CASES:
        k = shape[-1]
        lin = torch.nn.Linear(k, n, bias=bias, device="cuda", dtype=torch.bfloat16)
        x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
        layer = make(kind, opts, lin)
        layer(x), layer(x)
        y = layer(x)
        with Plain():
            ref = layer(x)
        same = bool(torch.equal(y, ref))
        t_layer, t_bf = [], []
        for _ in range(7):
            t_bf.append(wall_time_us(lambda: F.linear(x, lin.weight, lin.bias), calls=200, reps=1))
            t_layer.append(wall_time_us(lambda: layer(x), calls=200, reps=1))
        g_layer = graph_time_us(lambda: layer(x))
        g_bf = graph_time_us(lambda: F.linear(x, lin.weight, lin.bias))
        r = dict(wall_us=min(t_layer), bf16_wall_us=min(t_bf), ratio=min(t_layer) / min(t_bf), gpu_us=g_layer,
                 bf16_gpu_us=g_bf, equal_to_op_path=same, out_shape=list(y.shape))
        res["layers"][name] = r
        print(f"{label} {name}: layer {r['wall_us']:.2f} us wall (GPU {g_layer:.1f}), bf16 F.linear "
              f"{r['bf16_wall_us']:.2f} (GPU {g_bf:.1f}), ratio {r['ratio']:.3f}; equal to the op path: {same}",
              flush=True)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            mk = lambda i, o: torch.nn.Linear(i, o, bias=False, device="cuda", dtype=torch.bfloat16)  # noqa: E731
            self.v, self.o, self.gate, self.up, self.down = mk(H, H), mk(H, H), mk(H, I), mk(H, I), mk(I, H)

        def forward(self, x):
            y = x + self.o(self.v(x))
            return y + self.down(F.silu(self.gate(y)) * self.up(y))

    base = torch.nn.Sequential(*[Block() for _ in range(BLOCKS)]).eval()
    models = {"bf16": base}
    for scheme in SCHEMES:
        models[scheme] = copy.deepcopy(base)
        cutlass_gemm.nn.quantize_model(models[scheme], scheme)
    with torch.inference_mode():
        for tokens in (1, 16):
            x = torch.randn(1, tokens, H, device="cuda", dtype=torch.bfloat16) * 0.1
            row = {}
            for model in models.values():
                model(x)
            for _ in range(5):
                for mname, model in models.items():
                    row.setdefault(mname, []).append(wall_time_us(lambda: model(x), calls=50, reps=1))
            row = {a: min(v) for a, v in row.items()}
            row["gpu_us"] = {a: graph_time_us(lambda: m_(x)) for a, m_ in models.items()}
            res["model"][str(tokens)] = row
            print(f"{label} model {tokens} token(s): " + ", ".join(f"{a} {v:.1f} us" for a, v in row.items()
                                                                  if a != "gpu_us")
                  + " | GPU " + ", ".join(f"{a} {v:.1f}" for a, v in row["gpu_us"].items()), flush=True)
    Path(out_path).write_text(json.dumps(res, indent=1))


def compare(paths):
    runs = [json.loads(Path(p).read_text()) for p in paths]
    by = {}
    for r in runs:
        by.setdefault(r["label"], []).append(r)
    labels = list(by)
    print("Per process: the layer's eager wall clock over bf16 F.linear's, measured beside it (median over the "
          "processes of each label, then each process's ratio)")
    print()
    print("| call | " + " | ".join(f"{lb} ratio" for lb in labels) + " | per process | GPU us (layer / bf16) |"
          " equal to the op path |")
    print("|---|" + "---|" * (len(labels) + 3))
    for name in runs[0]["layers"]:
        cells = [statistics.median(r["layers"][name]["ratio"] for r in by[lb]) for lb in labels]
        each = "; ".join(lb + " " + ", ".join(f"{r['layers'][name]['ratio']:.2f}" for r in by[lb]) for lb in labels)
        g = runs[-1]["layers"][name]
        eq = all(r["layers"][name]["equal_to_op_path"] for r in runs)
        print(f"| {name} | " + " | ".join(f"{c:.2f}x" for c in cells) + f" | {each} | {g['gpu_us']:.1f} / "
              f"{g['bf16_gpu_us']:.1f} | {eq} |")
    print()
    print("| model (4 blocks, eager) | " + " | ".join(f"{lb} ratio to bf16" for lb in labels) + " | per process |"
          " GPU us from a CUDA graph (scheme / bf16) |")
    print("|---|" + "---|" * (len(labels) + 2))
    for tokens in runs[0]["model"]:
        for m in SCHEMES:
            cells = [statistics.median(r["model"][tokens][m] / r["model"][tokens]["bf16"] for r in by[lb])
                     for lb in labels]
            each = "; ".join(lb + " " + ", ".join(f"{r['model'][tokens][m] / r['model'][tokens]['bf16']:.2f}"
                                                  for r in by[lb]) for lb in labels)
            g = runs[-1]["model"][tokens]["gpu_us"]
            print(f"| {tokens} token(s), {m} | " + " | ".join(f"{c:.2f}x" for c in cells) + f" | {each} | "
                  f"{g[m]:.1f} / {g['bf16']:.1f} |")


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    elif sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        compare(sys.argv[2:])
