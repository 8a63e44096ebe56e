"""Session 40 probe: the weight-only mma kernels' row blocks (M > 64 as grid-z blocks) on narrow layers.

For each batch-1 stride-1 1x1 conv of ResNet-50 (M = H*W pixel rows, N = Co, K = Ci) and a few narrow linear
shapes at M = 128 .. 2048, one process, fp16, GPU time of a CUDA graph calling 20-64 copies once each
(bench_common.graph_time_us, weights cycling so none sits in L2 from the call before):
  cudnn:  F.conv2d fp16 channels_last (conv rows) / F.linear fp16 on the dense weight (linear rows)
  layer:  WeightOnlyConv2d / WeightOnlyLinear int4 (g128, g64 where K = 64) as the committed routing serves it
  v<id>:  ext.wo_gemm(x rows, ..., variant id) for every mma variant (row blocks where M > its rows)
Every variant's output is checked against float64 on the dequantized weight before it is timed.
Writes rows.md and rows.json to the folder given."""
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from bench_common import graph_time_us, md_table, stamp  # noqa: E402

import cutlass_gemm.nn as cnn  # noqa: E402
from cutlass_gemm.quant import unpack  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

CL = torch.channels_last
CONVS = [("l1.a", 64, 64, 56), ("l1.c", 64, 256, 56), ("l1.a'", 256, 64, 56), ("l2.a", 256, 128, 56),
         ("l2.c", 128, 512, 28), ("l2.a'", 512, 128, 28), ("l3.a", 512, 256, 28), ("l3.c", 256, 1024, 14),
         ("l3.a'", 1024, 256, 14), ("l4.a", 1024, 512, 14), ("l4.c", 512, 2048, 7), ("l4.a'", 2048, 512, 7)]
LINEAR = [(m, n, k) for m in (128, 256, 512, 1024, 2048) for n, k in ((1024, 4096), (2048, 2048), (2048, 8192))]
MMA = [0, 1, 2, 3, 4, 27, 28, 32, 34]  # wo_launch.cuh kWoVariants of kind "mma" (0: the default CTA by M)


def rel(y, ref):
    return float((y.double() - ref).norm() / ref.norm())


def case(ext, name, m, n, k, conv_hw=None):
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    copies = max(20, min(64, -(-(120 << 20) // (n * k * 2))))
    lins = [nn.Linear(k, n, device="cuda", dtype=torch.float16) for _ in range(copies)]
    with torch.no_grad():
        for lin in lins:
            lin.weight.copy_(torch.randn(n, k, device="cuda", generator=g) * k ** -0.5)
    block = 128 if k % 128 == 0 else 64
    row = {"case": name, "m": m, "n": n, "k": k}
    if conv_hw is not None:
        convs = []
        for lin in lins:
            c = nn.Conv2d(k, n, 1, device="cuda", dtype=torch.float16)
            with torch.no_grad():
                c.weight.copy_(lin.weight.view(n, k, 1, 1))
                c.bias.copy_(lin.bias)
            convs.append(c)
        x4 = torch.randn(1, k, conv_hw, conv_hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
        x = x4.permute(0, 2, 3, 1).reshape(m, k)  # the pixel rows (a view: channels_last)
        layers = [cnn.WeightOnlyConv2d.from_float(c, bits=4, block_size=block) for c in convs]
        it = iter(range(10 ** 9))
        with torch.no_grad():
            row["cudnn"] = graph_time_us(lambda: convs[next(it) % copies](x4), calls=copies)
            row["layer"] = graph_time_us(lambda: layers[next(it) % copies](x4), calls=copies)
        wo = [layer.linear for layer in layers]
    else:
        x = torch.randn(m, k, device="cuda", generator=g).half()
        it = iter(range(10 ** 9))
        wo = [cnn.WeightOnlyLinear.from_float(lin, bits=4, group_size=block) for lin in lins]
        with torch.no_grad():
            row["cudnn"] = graph_time_us(lambda: lins[next(it) % copies](x), calls=copies)
            row["layer"] = graph_time_us(lambda: wo[next(it) % copies](x), calls=copies)
    w0 = wo[0]
    ref = x.double() @ unpack(w0.packed).dequantize(torch.float64).t() + w0.bias.double()
    row["layer_err"] = rel(w0(x), ref)
    for v in MMA:
        args = lambda L: (x, L.qweight, L.scales, L.zeros, L.bias, 4, block, n, 0, v)  # noqa: E731
        try:
            y = ext.wo_gemm(*args(w0))
        except RuntimeError as e:
            row[f"v{v}"] = None
            row[f"v{v}_note"] = str(e)[:80]
            continue
        err = rel(y, ref)
        row[f"v{v}_err"] = err
        if not err < 2e-2:
            row[f"v{v}"] = None
            row[f"v{v}_note"] = f"WRONG rel err {err:.3g}"
            continue
        row[f"v{v}"] = graph_time_us(lambda: ext.wo_gemm(*args(wo[next(it) % copies])), calls=copies)
    times = {c: row[c] for c in row if c.startswith("v") and not c.endswith(("_err", "_note")) and row[c] is not None}
    best = min(times, key=times.get)
    row["best"], row["best_us"] = best, times[best]
    row["x_cudnn_layer"] = round(row["cudnn"] / row["layer"], 3)
    row["x_cudnn_best"] = round(row["cudnn"] / times[best], 3)
    print(f"{name} {m}x{n}x{k}: cudnn {row['cudnn']:.2f} layer {row['layer']:.2f} best {best} {times[best]:.2f} "
          f"({row['x_cudnn_best']}x)", flush=True)
    return row


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    ext = extension.load()
    assert ext is not None, "extension"
    rows = []
    for name, ci, co, hw in CONVS:
        rows.append(case(ext, name, hw * hw, co, ci, conv_hw=hw))
    for m, n, k in LINEAR:
        rows.append(case(ext, "linear", m, n, k))
    (out / "rows.json").write_text(json.dumps({"meta": stamp(), "rows": rows}, indent=1))
    cols = ["cudnn", "layer"] + [f"v{v}" for v in MMA]
    table = [[r["case"], f"{r['m']}x{r['n']}x{r['k']}"] + [("-" if r.get(c) is None else f"{r[c]:.2f}") for c in cols]
             + [r["best"], r["x_cudnn_layer"], r["x_cudnn_best"]] for r in rows]
    lines = [json.dumps(stamp()), "", "GPU time us (CUDA graph of 20-64 copies), fp16, int4 g128 (g64 at K = 64); cudnn = "
             "F.conv2d (conv rows) or F.linear fp16 (linear rows); layer = the committed routing", ""]
    lines += md_table(["case", "MxNxK"] + cols + ["best", "cudnn/layer", "cudnn/best"], table)
    (out / "rows.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
