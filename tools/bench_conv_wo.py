"""`python tools/benchmark.py conv --weight-only --kxk [--resnet]`: weight-only k x k / strided convolutions (the
implicit GEMM of cutlass_gemm/ops/conv_wo.py, session 54) against cuDNN fp16, channels_last.

Rows: every ResNet-50 conv shape that is not a stride-1 1x1 GEMM (tools/resnet50.py RESNET50_CONVS: the 3x3 convs,
stride 1 and 2, and the strided 1x1 downsamples) at batch 1 and 32. Columns, us per call, GPU time (each call
captured into one CUDA graph that cycles over enough copies of the layer that their fp16 weights exceed L2;
bench_common.graph_time_us):
- cudnn_f16 / cudnn_f16_nobias: F.conv2d with and without a bias (with one, PyTorch runs two kernels);
- w4: `WeightOnlyConv2d.from_float(conv, bits=4, block_size=128)` of the bias-free conv (torchvision's ResNet-50 convs
  have none), w4_bias: of the conv with a bias, w8: int8 per channel, bias-free;
- v1 / v2 / v3 / v28: the int4 kernel of each compiled convolution variant (the extension's `wo_conv` with the
  variant forced), and `chosen`, the variant `wo_heuristics.conv_variant` picks;
- route: what the layer takes (`weight_only_conv_backend`: the kernel up to wo_heuristics.CONV_IGEMM_MAX_MNK, above it
  dequantize + cuDNN); fallback ("dequant+cudnn"): that second route timed on its own (the weight dequantized by the
  extension's kernel, then cuDNN);
- floor_us: int4 weight + fp16 x and y bytes at the measured copy rate.
Ratios cudnn / layer (> 1: the quantized layer is faster). Each row also checks the int4 layer's output against a
float64 conv with the dequantized weight (`w4_rel_err`). `--resnet` adds ResNet-50 at batch 1 and 32: the fp16 cuDNN
model against `quantize_model(model, "w4a16" / "w8a16")` (every conv but the Ci = 3 stem), eager wall clock and
CUDA-graph GPU time, and each model's relative error vs fp32.
"""
import copy
import itertools
import statistics

import torch
import torch.nn.functional as F
from torch import nn

from bench_common import graph_time_us, md_table, report, wall_time_us, write_results
from bench_conv import time_models
from resnet50 import RESNET50_CONVS, resnet50

import cutlass_gemm.nn as cnn
from cutlass_gemm.ops import weight_only_conv_backend, wo_heuristics
from cutlass_gemm.quant import unpack
from cutlass_gemm.quant.conv_weight import conv_weight_from_matrix
from cutlass_gemm.runtime import extension

CL = torch.channels_last
KXK = [s for s in RESNET50_CONVS if s[3] != 1 or s[4] != 1]


def _cycling(fns, *args):
    it = itertools.cycle(fns)
    return lambda: next(it)(*args)


def _copies(ci, co, k):
    return max(4, min(32, -(-(120 << 20) // (ci * co * k * k * 2))))


def kxk_row(name, ci, co, k, stride, hw, batch, copy_gbs):
    g = torch.Generator(device="cuda").manual_seed(0)
    pad = k // 2
    n = _copies(ci, co, k)
    bare = [nn.Conv2d(ci, co, k, stride, pad, bias=False, device="cuda", dtype=torch.float16) for _ in range(n)]
    biased = [nn.Conv2d(ci, co, k, stride, pad, device="cuda", dtype=torch.float16) for _ in range(n)]
    with torch.no_grad():
        for a, b in zip(bare, biased):
            a.weight.copy_(torch.randn(co, ci, k, k, device="cuda", generator=g) * (ci * k * k) ** -0.5)
            b.weight.copy_(a.weight)
    x = torch.randn(batch, ci, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
    row = {"conv": name, "batch": batch, "ci": ci, "co": co, "k": k, "stride": stride, "hw": hw, "copies": n}
    ext = extension.load()
    with torch.no_grad():
        row["cudnn_f16"] = graph_time_us(_cycling(biased, x), calls=n)
        row["cudnn_f16_nobias"] = graph_time_us(_cycling(bare, x), calls=n)
        row["cudnn_f16_wall"] = wall_time_us(_cycling(biased, x), calls=2 * n, reps=5)
        w4 = [cnn.WeightOnlyConv2d.from_float(c, bits=4, block_size=128) for c in bare]
        lin = w4[0].linear
        wd = conv_weight_from_matrix(unpack(lin.packed).dequantize(torch.float64), k, k, ci)
        ref = F.conv2d(x.double(), wd, None, stride, pad)
        y = w4[0](x)
        row["w4_rel_err"] = float((y.double() - ref).norm() / ref.norm())
        row["w4"] = graph_time_us(_cycling(w4, x), calls=n)
        row["w4_wall"] = wall_time_us(_cycling(w4, x), calls=2 * n, reps=5)
        nhwc = x.permute(0, 2, 3, 1)
        pq = (hw + 2 * pad - k) // stride + 1
        kp = lin.in_features
        row["chosen"] = wo_heuristics.conv_variant(batch * pq * pq, co, kp)
        row["route"] = weight_only_conv_backend(x, co, kp, batch * pq * pq)
        geometry = [k, k, stride, stride, pad, pad, 1, 1]
        for v in wo_heuristics.CONV_VARIANTS:
            calls = [(lambda layer=layer, v=v: ext.wo_conv(nhwc, layer.linear.qweight, layer.linear.scales, None, None,
                                                           4, 128, co, geometry, 0, v)) for layer in w4]
            row[f"v{v}"] = graph_time_us(_cycling(calls), calls=n)
        row["best_variant"] = min(wo_heuristics.CONV_VARIANTS, key=lambda v: row[f"v{v}"])
        deq = [(lambda layer=layer: F.conv2d(x, conv_weight_from_matrix(ext.wo_dequant(
            layer.linear.qweight, layer.linear.scales, None, 4, 128, co, kp), k, k, ci), None, stride, pad))
            for layer in w4[:4]]
        row["fallback"] = graph_time_us(_cycling(deq), calls=4)
        del w4
        w4b = [cnn.WeightOnlyConv2d.from_float(c, bits=4, block_size=128) for c in biased]
        row["w4_bias"] = graph_time_us(_cycling(w4b, x), calls=n)
        del w4b
        w8 = [cnn.WeightOnlyConv2d.from_float(c, bits=8, block_size=None) for c in bare]
        row["w8"] = graph_time_us(_cycling(w8, x), calls=n)
        del w8
    moved = ci * co * k * k / 2 + 2 * batch * (hw * hw * ci + pq * pq * co)
    row["floor_us"] = moved / (copy_gbs * 1e3)
    for col, base in (("w4", "cudnn_f16_nobias"), ("w8", "cudnn_f16_nobias"), ("w4_bias", "cudnn_f16"),
                      ("fallback", "cudnn_f16_nobias")):
        row[f"x_{base}_per_{col}"] = round(row[base] / row[col], 3)
    row["x_wall"] = round(row["cudnn_f16_wall"] / row["w4_wall"], 3)
    return row


def resnet_wo_rows():
    """ResNet-50 at batch 1 and 32: the fp16 cuDNN model vs w4a16 / w8a16 (every conv but the stem quantized)."""
    base, source = resnet50()
    base = base.cuda().to(memory_format=CL).eval()
    lines = [f"ResNet-50 ({source}, random weights), 224x224, channels_last, fp16 activations; eager = wall clock per "
             f"forward, graph = CUDA-graph GPU time per forward (ms):"]
    summary = []
    models = {"fp16 cuDNN": copy.deepcopy(base).half()}
    reports = {}
    for scheme in ("w4a16", "w8a16"):
        q = copy.deepcopy(base).half()
        reports[scheme] = cnn.quantize_model(q, scheme)
        models[scheme] = q
    for batch in (1, 32):
        x = torch.randn(batch, 3, 224, 224, device="cuda").contiguous(memory_format=CL)
        xh = x.half()
        with torch.no_grad():
            rows, more = time_models(models, xh, base(x).double(), reports, label=f"batch {batch:2d} ")
        summary += [dict(r, batch=batch, resnet_source=source) for r in rows]
        lines += more
    for scheme, rep in reports.items():
        lines.append(f"  {scheme}: {rep}".replace("\n", "\n    "))
    return lines, summary


def cmd_conv_wo_kxk(args):
    torch.backends.cudnn.benchmark = True
    src = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy_gbs = 2 * src.numel() / graph_time_us(lambda: dst.copy_(src), calls=2) / 1e3
    rows = [kxk_row(*s, b, copy_gbs) for b in ((1,) if args.quick else (1, 32)) for s in KXK]
    write_results(args.out, "conv_weight_only_kxk", rows)
    header = ["conv", "batch", "Ci->Co", "k/s", "HW", "route", "cudnn f16", "no bias", "w4", "w4 bias", "w8", "v1", "v2",
              "v3", "v28", "chosen", "best", "dequant+cudnn", "floor", "no bias/w4", "no bias/w8", "f16/w4 bias", "wall f16/w4",
              "w4 rel err"]
    table = [[r["conv"], r["batch"], f"{r['ci']}->{r['co']}", f"{r['k']}/{r['stride']}", r["hw"], r["route"],
              *(f"{r[c]:.2f}" for c in ("cudnn_f16", "cudnn_f16_nobias", "w4", "w4_bias", "w8", "v1", "v2", "v3",
                                        "v28")),
              r["chosen"], r["best_variant"], f"{r['fallback']:.2f}", f"{r['floor_us']:.2f}",
              r["x_cudnn_f16_nobias_per_w4"], r["x_cudnn_f16_nobias_per_w8"], r["x_cudnn_f16_per_w4_bias"],
              r["x_wall"], f"{r['w4_rel_err']:.2e}"] for r in rows]
    lines = [f"Weight-only k x k / strided convs of ResNet-50, fp16, channels_last, GPU time (CUDA graph cycling over "
             f"copies whose weights exceed L2), us per call; floor = int4 weight + fp16 x and y at {copy_gbs:.0f} GB/s; "
             "v1..v28: the int4 kernel of each convolution variant, chosen = the heuristic's, best = the fastest:", ""]
    lines += md_table(header, table)
    for batch in sorted({r["batch"] for r in rows}):
        for key, what in (("x_cudnn_f16_nobias_per_w4", "bias-free cuDNN fp16 / int4"),
                          ("x_cudnn_f16_per_w4_bias", "cuDNN fp16 with bias / int4 with bias")):
            ratios = [r[key] for r in rows if r["batch"] == batch]
            lines.append(f"\nbatch {batch}: {what}: geometric mean {statistics.geometric_mean(ratios):.2f}x, "
                         f"min {min(ratios):.2f}x, max {max(ratios):.2f}x")
    if args.resnet:
        more, summary = resnet_wo_rows()
        lines += [""] + more
        write_results(args.out, "conv_weight_only_resnet50", summary)
    report(args.out, "conv_weight_only_kxk", lines)
