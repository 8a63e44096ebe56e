#!/usr/bin/env python3
"""Session 52 probe: the eager host time of the W8A8 layers, run once with the code under test and once with the
code before it (a copy of 5e535b8's package on PYTHONPATH), alternated, in separate processes on one machine.

`run LABEL OUT.json` measures, in one process:
- per layer call, the wall clock per call of 500 back-to-back calls (bench_common.wall_time_us: median of 5), bf16
  F.linear beside it: Int8Linear / Fp8Linear with each activation scheme, at 1, 32 and 200 rows (200: padded to
  whole tiles), 2-D and 3-D x, with and without bias; and the GPU time of the same call from a CUDA graph;
- per forward of a small eager model: 4 blocks of x + o(v(x)) and y + down(silu(gate(y)) * up(y)) at hidden 4096,
  intermediate 11008 (Llama-7B's projection shapes, no attention), 1 and 32 tokens, bf16 / Int8Linear / Fp8Linear;
- that each eager layer output equals the composed path's (registered quantize op + GEMM op; the same kernels) bit
  for bit.

    python host_layer.py names                 # kernels to build first
    python host_layer.py run LABEL OUT.json
    python host_layer.py compare OLD.json NEW.json ...   # (runs here, no GPU)
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
if "cutlass_gemm" not in sys.modules and not any("old52" in p for p in sys.path):
    sys.path.insert(0, str(ROOT))

CASES = [  # (label, class, act, bias, x shape, N)
    ("int8 dynamic 32x4096", "Int8Linear", "dynamic", False, (32, 4096), 4096),
    ("int8 dynamic 1x32x4096 (3-D)", "Int8Linear", "dynamic", False, (1, 32, 4096), 4096),
    ("int8 dynamic 1x4096 (GEMV)", "Int8Linear", "dynamic", False, (1, 4096), 4096),
    ("int8 dynamic 200x4096 (padded)", "Int8Linear", "dynamic", False, (200, 4096), 4096),
    ("int8 dynamic +bias 32x4096", "Int8Linear", "dynamic", True, (32, 4096), 4096),
    ("int8 dynamic_asym 32x4096", "Int8Linear", "dynamic_asym", False, (32, 4096), 4096),
    ("int8 dynamic_per_tensor 32x4096", "Int8Linear", "dynamic_per_tensor", False, (32, 4096), 4096),
    ("int8 static 32x4096", "Int8Linear", "static", False, (32, 4096), 4096),
    ("fp8 dynamic 32x4096", "Fp8Linear", "dynamic", False, (32, 4096), 4096),
    ("fp8 dynamic 200x4096 (padded)", "Fp8Linear", "dynamic", False, (200, 4096), 4096),
]
HIDDEN, INTER, BLOCKS = 4096, 11008, 4
KINDS = {"dynamic": ("scaled", "token"), "dynamic_asym": ("scaled_azp_per_token_nobias", "token"),
         "dynamic_per_tensor": ("scaled", "tensor"), "static": ("scaled", "token")}


def names():
    from cutlass_gemm.kernels import heuristics
    out = set()
    for _, cls, act, bias, shape, n in CASES:
        ab = "int8" if cls == "Int8Linear" else "e4m3"
        variant, sa = KINDS[act]
        if bias:
            variant = variant.replace("_nobias", "") if "azp" in variant else "scaled_bias"
        m, k = (shape[0] * shape[1] if len(shape) == 3 else shape[0]), shape[-1]
        rows = heuristics.padded_rows(90, m, n, ab, k=k)
        out.add(heuristics.make_config(90, variant, "bf16", heuristics.choose_tile(90, rows, n, ab, k), a_dtype=ab,
                                       scale_a=sa).name)
    for m in (1, 32):
        for n, k in ((HIDDEN, HIDDEN), (INTER, HIDDEN), (HIDDEN, INTER)):
            for ab in ("int8", "e4m3"):
                rows = heuristics.padded_rows(90, m, n, ab, k=k)
                out.add(heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, rows, n, ab, k),
                                               a_dtype=ab).name)
    return sorted(out)


def run(label, out_path):
    import torch
    import torch.nn.functional as F
    from bench_common import graph_time_us, wall_time_us
    import cutlass_gemm
    from cutlass_gemm import nn as cnn
    from cutlass_gemm.ops import linear as lin_ops
    torch.manual_seed(0)
    from cutlass_gemm.runtime import fastpath
    ext = fastpath.module()
    res = dict(label=label, package=str(Path(cutlass_gemm.__file__).parent), layers={}, model={},
               extension=getattr(ext, "__file__", None))
    print(f"{label}: package {res['package']}, extension {res['extension']}", flush=True)
    for name, cls, act, bias, shape, n in CASES:
        k = shape[-1]
        lin = torch.nn.Linear(k, n, bias=bias, device="cuda", dtype=torch.bfloat16)
        x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
        kw = dict(calibration_data=[x]) if act == "static" else {}
        layer = getattr(cnn, cls).from_float(lin, act=act, **kw)
        layer(x), layer(x)  # the plan (Python path), then the C++ call
        y = layer(x)
        # the composed path: the registered quantize op and GEMM op, same rows, same kernel
        b = layer._buffers
        x2 = x.reshape(-1, k)
        rows = lin_ops.padded_rows_for(x2, b["weight"])
        ref = lin_ops._composed(x2, b["weight"].t(), b["weight_scale"], b["bias"], "static" if act == "static" else act,
                                b["input_scale"], b["input_zero_point"], b["azp_adj"], torch.bfloat16, b["weight"].dtype,
                                None, rows if rows > x2.shape[0] else 0)[:x2.shape[0]].reshape(y.shape)
        same = bool(torch.equal(y, ref))
        t_layer, t_bf = [], []
        for _ in range(7):  # interleaved short rounds, the least of each: the host's noise only adds
            t_bf.append(wall_time_us(lambda: F.linear(x, lin.weight, lin.bias), calls=200, reps=1))
            t_layer.append(wall_time_us(lambda: layer(x), calls=200, reps=1))
        g_layer = graph_time_us(lambda: layer(x))
        g_bf = graph_time_us(lambda: F.linear(x, lin.weight, lin.bias))
        r = dict(wall_us=min(t_layer), bf16_wall_us=min(t_bf), gpu_us=g_layer, bf16_gpu_us=g_bf, equal_to_composed=same,
                 rows=rows, out_shape=list(y.shape), out_is_view=y._base is not None)
        res["layers"][name] = r
        print(f"{label} {name}: layer {r['wall_us']:.2f} us wall (GPU {g_layer:.1f}), bf16 F.linear {r['bf16_wall_us']:.2f}"
              f" (GPU {g_bf:.1f}); equal to composed: {same}", flush=True)

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            mk = lambda i, o: torch.nn.Linear(i, o, bias=False, device="cuda", dtype=torch.bfloat16)  # noqa: E731
            self.v, self.o, self.gate, self.up, self.down = (mk(HIDDEN, HIDDEN), mk(HIDDEN, HIDDEN),
                                                             mk(HIDDEN, INTER), mk(HIDDEN, INTER), mk(INTER, HIDDEN))

        def forward(self, x):
            y = x + self.o(self.v(x))
            return y + self.down(F.silu(self.gate(y)) * self.up(y))

    base = torch.nn.Sequential(*[Block() for _ in range(BLOCKS)]).eval()
    import copy
    models = {"bf16": base}
    for scheme in ("w8a8-int8", "w8a8-fp8"):
        models[scheme] = copy.deepcopy(base)
        cutlass_gemm.nn.quantize_model(models[scheme], scheme)  # in place (returns its report)
    with torch.inference_mode():
        for tokens in (1, 32):
            x = torch.randn(1, tokens, HIDDEN, device="cuda", dtype=torch.bfloat16) * 0.1
            row = {}
            for mname, model in models.items():
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
    print("| call | " + " | ".join(f"{lb} wall us" for lb in labels) + " | bf16 F.linear wall us | GPU us (layer / bf16) |")
    print("|---|" + "---|" * (len(labels) + 2))
    for name in runs[0]["layers"]:
        cells = [statistics.median(r["layers"][name]["wall_us"] for r in by[lb]) for lb in labels]
        bf = statistics.median(r["layers"][name]["bf16_wall_us"] for rr in by.values() for r in rr)
        g = runs[-1]["layers"][name]
        print(f"| {name} | " + " | ".join(f"{c:.1f}" for c in cells) + f" | {bf:.1f} | {g['gpu_us']:.1f} / "
              f"{g['bf16_gpu_us']:.1f} |")
    for tokens in runs[0]["model"]:
        for m in ("bf16", "w8a8-int8", "w8a8-fp8"):
            cells = [statistics.median(r["model"][tokens][m] for r in by[lb]) for lb in labels]
            print(f"| model, {tokens} token(s), {m} | " + " | ".join(f"{c:.1f}" for c in cells) +
                  f" | | {runs[-1]['model'][tokens]['gpu_us'][m]:.1f} |")


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    elif sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3])
    else:
        compare(sys.argv[2:])
