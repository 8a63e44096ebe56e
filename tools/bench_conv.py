"""`python tools/benchmark.py conv [--quick] [--resnet]`: int8 convolutions against cuDNN, channels_last.

Rows: ResNet-50's distinct conv shapes (tools/resnet50.py: 3x3 and 1x1, 56x56 down to 7x7, stride 1 and 2) at
batch 1 and 32. Two kinds of figure per column (us per call):
- GPU time (no host cost): the call captured 20 times into one CUDA graph, replays timed with events
  (bench_common.graph_time_us). The sleep-queued eager figure used before (gpu_time_us) was the host's rate
  whenever the host needed more per call than the kernel (session6/call5: 65-75 us for every 3x3 conv);
- wall (`*_wall`): back-to-back eager calls, synchronized at the end (bench_common.wall_time_us): the larger of
  host and GPU time per call, what an eager model sees. wall >> GPU: host-bound.
Columns: cudnn_f16 / cudnn_bf16: F.conv2d(x, w, bias) on channels_last fp16 / bf16 tensors, cudnn.benchmark on;
int8_kernel: the int8 kernel alone on already-quantized operands, bias fused, bf16 out (k x k / strided: the
implicit-GEMM op `conv2d_int8_igemm`; 1x1 stride 1: the fused GEMM `scaled_mm` on the pixel rows); int8_e2e:
`conv2d_int8` from the bf16 activation (dynamic per-tensor quantization kernel + conv kernel; 1x1: per-pixel
quantization + GEMM); int8_layer: `Int8Conv2d.from_float(conv)(x)` on the same bf16 x (what quantize_model
runs); int8_static_layer: the same layer with a calibrated input scale (`act="static"`: one-pass quantization
with the given scale instead of the dynamic per-tensor kernel's two phases). Ratios cudnn_f16 / int8 (> 1: int8
faster). The aim (issue 14): >= 1.3x on the 3x3 convs at batch 32.
int8_chain (k x k rows): the layer as an int8 chain runs it (nn/chain.py): `Int8ConvActivation` in (int8 NHWC +
scale + the chain's NaN guard, from the previous conv's epilogue), output quantized in its own epilogue for the next
conv (ReLU fused): no quantization kernel, int8 bytes in and out, no other op (the guard is read by the kernel);
int8_chain_end: int8 in, bf16 out (the chain's last conv, before a residual add); int8_chain_plain: int8_chain with
the kernels launched plainly (programmatic dependent launches, the default since conv generator 5, switched off while
the graph is captured). `--resnet` times the chained model both ways too.
`--weight-only` times instead ResNet-50's stride-1 1x1 convs at batch 1 (WO_1X1) with int4 (g128; g64 where
Ci = 64) and int8
(per channel) weights, `WeightOnlyConv2d.from_float(conv)` on the fp16 layer, against cuDNN fp16 (issue 14's
aim: >= 2x at batch 1), beside the weight-bytes floor (int4 weight + fp16 activation in and out at the copy rate);
the same convs without a bias too ('no bias' columns: F.conv2d with a bias is two kernels in PyTorch, the conv and an
elementwise bias add, so the int4 layer is also timed against the conv alone, as torchvision's ResNet-50 has it),
and two measured floors in the same harness: an empty kernel and one torch kernel writing the layer's output. The int8
rows report the bias-free conv beside the conv with bias ('no bias' ratios) too.
`--resnet` adds the whole network at batch 32 (fp16 cuDNN model vs `quantize_model(model, scheme)` for
w8a8-int8 and w8a8-int8-static, both channels_last), eager wall clock and CUDA-graph GPU time, plus each
model's relative error vs fp32.
"""
import copy
import itertools
import statistics

import torch
import torch.nn.functional as F
from torch import nn

from bench_common import graph_time_us, md_table, plain_launch, report, wall_time_us, write_results
from resnet50 import RESNET50_CONVS, resnet50

import cutlass_gemm  # registers the ops
import cutlass_gemm.nn as cnn
from cutlass_gemm import conv2d_int8
from cutlass_gemm.ops import gemm
from cutlass_gemm.ops.conv import conv_unsupported_reason
from cutlass_gemm.ops.conv_igemm import conv2d_int8_igemm

CL = torch.channels_last
RESNET_SCHEMES = ("w8a8-int8", "w8a8-int8-static")


def _both(row, name, fn):
    """row[name] = CUDA-graph GPU time, row[name + "_wall"] = eager wall clock."""
    row[name] = graph_time_us(fn)
    row[name + "_wall"] = wall_time_us(fn, calls=100, reps=5)


def _row(name, ci, co, k, stride, hw, batch):
    g = torch.Generator(device="cuda").manual_seed(0)
    pad = k // 2
    x = torch.randn(batch, ci, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
    w = (torch.randn(co, ci, k, k, device="cuda", generator=g) * 0.05).half().contiguous(memory_format=CL)
    b = torch.randn(co, device="cuda", generator=g).half()
    xb, wb, bb = x.bfloat16(), w.bfloat16(), b.bfloat16()
    w_q = torch.randint(-127, 128, (co, ci, k, k), dtype=torch.int8, device="cuda", generator=g).contiguous(
        memory_format=CL)
    w_scale = torch.rand(1, co, device="cuda", generator=g) * 1e-3
    row = {"conv": name, "batch": batch, "ci": ci, "co": co, "k": k, "stride": stride, "hw": hw}
    _both(row, "cudnn_f16", lambda: F.conv2d(x, w, b, stride, pad))
    row["cudnn_bf16"] = graph_time_us(lambda: F.conv2d(xb, wb, bb, stride, pad))
    row["cudnn_f16_nobias"] = graph_time_us(lambda: F.conv2d(x, w, None, stride, pad))  # the conv kernel alone
    is_gemm = conv_unsupported_reason(k, stride, pad) is None
    if is_gemm:
        rows = torch.randint(-128, 128, (batch * hw * hw, ci), dtype=torch.int8, device="cuda", generator=g)
        b_t = w_q.reshape(co, ci).t()
        sa = torch.rand(batch * hw * hw, 1, device="cuda") * 1e-2
        _both(row, "int8_kernel", lambda: gemm.scaled_mm(rows, b_t, sa, w_scale, torch.bfloat16, bb))
        row["path"] = "gemm"
    else:
        xq = torch.randint(-128, 128, (batch, hw, hw, ci), dtype=torch.int8, device="cuda", generator=g)
        w_krsc = w_q.permute(0, 2, 3, 1)
        sx = torch.tensor([0.02], device="cuda")
        sw = w_scale.reshape(-1)
        _both(row, "int8_kernel", lambda: conv2d_int8_igemm(xq, w_krsc, sx, sw, bb, (stride, stride), (pad, pad),
                                                            (1, 1), None, torch.bfloat16))
        row["path"] = "implicit_gemm"
    _both(row, "int8_e2e", lambda: conv2d_int8(xb, w_q, w_scale, bb, stride=stride, padding=pad,
                                               out_dtype=torch.bfloat16))
    conv = nn.Conv2d(ci, co, k, stride, pad, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        conv.weight.copy_(wb)
        conv.bias.copy_(bb)
    layer = cnn.Int8Conv2d.from_float(conv)
    static = cnn.Int8Conv2d.from_float(conv, act="static", calibration_data=[xb])  # one-pass quant, given scale
    with torch.no_grad():
        _both(row, "int8_layer", lambda: layer(xb))
        row["int8_static_layer"] = graph_time_us(lambda: static(xb))
    cols = ["int8_kernel", "int8_e2e", "int8_layer", "int8_static_layer"]
    if not is_gemm:
        # a chain's middle activation: the guard is the chain's first scale (any finite one-element tensor)
        chained_in = cutlass_gemm.Int8ConvActivation(xq, static.linear.input_scale, sx.clone())
        end = copy.deepcopy(static)
        mid = copy.deepcopy(static)
        mid.set_int8_output(static.linear.input_scale, "relu")
        with torch.no_grad():
            _both(row, "int8_chain", lambda: mid(chained_in))
            row["int8_chain_end"] = graph_time_us(lambda: end(chained_in))
            # the same calls launched plainly (programmatic dependent launches off while captured)
            row["int8_chain_plain"] = graph_time_us(plain_launch(lambda: mid(chained_in)))
        cols += ["int8_chain", "int8_chain_end", "int8_chain_plain"]
    for col in cols:
        row[f"x_f16_per_{col[5:]}"] = round(row["cudnn_f16"] / row[col], 3)
        row[f"x_f16_nobias_per_{col[5:]}"] = round(row["cudnn_f16_nobias"] / row[col], 3)
    row["x_f16_per_layer_wall"] = round(row["cudnn_f16_wall"] / row["int8_layer_wall"], 3)
    return row


#: (name, Ci, Co, H=W) of every stride-1 1x1 conv shape in ResNet-50's bottlenecks (reduce a, expand c, and the
#: first block's reduce from the wider input): at batch 1 the weight is the bulk of the bytes only in the late stages.
WO_1X1 = [("l1.a", 64, 64, 56), ("l1.c", 64, 256, 56), ("l1.a'", 256, 64, 56),
          ("l2.a", 256, 128, 56), ("l2.c", 128, 512, 28), ("l2.a'", 512, 128, 28),
          ("l3.a", 512, 256, 28), ("l3.c", 256, 1024, 14), ("l3.a'", 1024, 256, 14),
          ("l4.a", 1024, 512, 14), ("l4.c", 512, 2048, 7), ("l4.a'", 2048, 512, 7)]


def _cycling(layers, x):
    """A call that runs the next of `layers` on x each time: captured `len(layers)` times into one graph, every
    weight is read once per replay, so a weight that fits in L2 is not timed as if it always sat there."""
    it = itertools.cycle(layers)
    return lambda: next(it)(x)


def weight_only_rows(copy_gbs: float):
    """Batch-1 1x1 convs: cuDNN fp16 vs WeightOnlyConv2d int4 g128 / int8 per channel (fp16), GPU time + wall.
    Each column rotates over enough copies of its layer that their fp16 weights exceed L2 (at most 64 copies)."""
    rows = []
    for name, ci, co, hw in WO_1X1:
        g = torch.Generator(device="cuda").manual_seed(0)
        n = max(20, min(64, -(-(120 << 20) // (ci * co * 2))))
        convs = [nn.Conv2d(ci, co, 1, device="cuda", dtype=torch.float16) for _ in range(n)]
        with torch.no_grad():
            for conv in convs:
                conv.weight.copy_(torch.randn(co, ci, 1, 1, device="cuda", generator=g) * ci ** -0.5)
        # The same convs without a bias: F.conv2d with a bias is two kernels in PyTorch (the conv, then an elementwise
        # bias add; session41/call6), the conv alone one, as torchvision's ResNet-50 convs (BatchNorm after) are.
        bare = [nn.Conv2d(ci, co, 1, bias=False, device="cuda", dtype=torch.float16) for _ in range(n)]
        with torch.no_grad():
            for conv, b in zip(convs, bare):
                b.weight.copy_(conv.weight)
        x = torch.randn(1, ci, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
        row = {"conv": name, "ci": ci, "co": co, "hw": hw, "m": hw * hw, "copies": n}
        with torch.no_grad():
            ref = F.conv2d(x.double(), convs[0].weight.double(), convs[0].bias.double())
            row["cudnn_f16"] = graph_time_us(_cycling(convs, x), calls=n)
            row["cudnn_f16_wall"] = wall_time_us(_cycling(convs, x), calls=2 * n, reps=5)
            row["cudnn_f16_nobias"] = graph_time_us(_cycling(bare, x), calls=n)
            layers = [cnn.WeightOnlyConv2d.from_float(b, bits=4, block_size=128 if ci % 128 == 0 else 64) for b in bare]
            row["w4g128_nobias"] = graph_time_us(_cycling(layers, x), calls=n)
            row["x_f16_per_w4g128_nobias"] = round(row["cudnn_f16_nobias"] / row["w4g128_nobias"], 3)
            del layers, bare
            for tag, bits, block in (("w4g128", 4, 128 if ci % 128 == 0 else 64), ("w8", 8, None)):
                layers = [cnn.WeightOnlyConv2d.from_float(conv, bits=bits, block_size=block) for conv in convs]
                y = layers[0](x)
                row[f"{tag}_rel_err"] = float((y.double() - ref).norm() / ref.norm())
                row[tag] = graph_time_us(_cycling(layers, x), calls=n)
                row[f"{tag}_wall"] = wall_time_us(_cycling(layers, x), calls=2 * n, reps=5)
                row[f"x_f16_per_{tag}"] = round(row["cudnn_f16"] / row[tag], 3)
                row[f"x_f16_per_{tag}_wall"] = round(row["cudnn_f16_wall"] / row[f"{tag}_wall"], 3)
                del layers
        moved = ci * co / 2 + 2 * hw * hw * (ci + co)  # int4 weight bytes + fp16 x in and y out
        row["w4_floor_us"] = moved / (copy_gbs * 1e3)
        # Measured floors, in the same graph harness: an empty kernel (the time one more kernel of a graph costs), and
        # one torch kernel that only writes this layer's output (fill_), which every one-kernel form of the layer does.
        y = torch.empty(1, co, hw, hw, device="cuda", dtype=torch.float16).contiguous(memory_format=CL)
        row["empty_kernel_us"] = graph_time_us(lambda: torch.cuda._sleep(0), calls=n)
        row["write_floor_us"] = graph_time_us(lambda: y.fill_(1.0), calls=n)
        row["x_nobias_per_write_floor"] = round(row["cudnn_f16_nobias"] / row["write_floor_us"], 3)
        rows.append(row)
    return rows


def cmd_conv_weight_only(args):
    torch.backends.cudnn.benchmark = True
    src = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")  # copy rate for the floor column
    dst = torch.empty_like(src)
    copy_gbs = 2 * src.numel() / graph_time_us(lambda: dst.copy_(src), calls=2) / 1e3
    rows = weight_only_rows(copy_gbs)
    write_results(args.out, "conv_weight_only", rows)
    header = ["conv", "Ci->Co", "HW", "cudnn f16", "w4 g128", "w8", "f16/w4", "f16/w8", "w4 floor",
              "no bias: cudnn f16", "w4 g128", "f16/w4", "empty kernel", "write y", "f16 no bias/write y",
              "wall: cudnn f16", "w4 g128", "w8", "f16/w4", "w4 rel err", "w8 rel err"]
    table = [[r["conv"], f"{r['ci']}->{r['co']}", r["hw"], *(f"{r[c]:.2f}" for c in ("cudnn_f16", "w4g128", "w8")),
              r["x_f16_per_w4g128"], r["x_f16_per_w8"], f"{r['w4_floor_us']:.2f}",
              f"{r['cudnn_f16_nobias']:.2f}", f"{r['w4g128_nobias']:.2f}", r["x_f16_per_w4g128_nobias"],
              f"{r['empty_kernel_us']:.2f}", f"{r['write_floor_us']:.2f}", r["x_nobias_per_write_floor"],
              *(f"{r[c + '_wall']:.1f}" for c in ("cudnn_f16", "w4g128", "w8")), r["x_f16_per_w4g128_wall"],
              f"{r['w4g128_rel_err']:.2e}", f"{r['w8_rel_err']:.2e}"] for r in rows]
    lines = [f"Batch-1 stride-1 1x1 convs of ResNet-50, fp16, channels_last: GPU time (one CUDA graph calling each of "
             f"20-64 copies of the layer once: their weights exceed L2), then eager wall clock, us per call; floor = int4 weight + fp16 x and y bytes at {copy_gbs:.0f} GB/s. "
             "cudnn f16: F.conv2d with a bias (two kernels: the conv, then PyTorch's bias add); 'no bias': the same "
             "convs without one (cuDNN's conv alone) and the int4 layer made from them; empty kernel / write y: "
             "measured floors in the same harness (torch.cuda._sleep(0); y.fill_(1.0), one kernel writing the layer's "
             "output), and the bias-free conv's time over the write's (what a one-kernel layer that only wrote y at "
             "fill_'s rate would gain over it):", ""]
    lines += md_table(header, table)
    for what, key in (("", "x_f16_per_w4g128"), (" without a bias", "x_f16_per_w4g128_nobias")):
        ratios = [r[key] for r in rows]
        lines.append(f"\ncuDNN fp16 / int4 g128{what} (GPU time): geometric mean {statistics.geometric_mean(ratios):.2f}x, "
                     f"min {min(ratios):.2f}x, max {max(ratios):.2f}x (aim: >= 2x)")
    report(args.out, "conv_weight_only", lines)


def time_models(models, x, ref, reports, label=""):
    """Each model of `models` (name -> module; the first is the baseline) on x: relative error vs `ref`, eager wall
    clock and CUDA-graph GPU time (ms). Returns (summary rows, printed lines); `reports` gives each quantized model's
    count of quantized layers."""
    rows, lines, base = [], [], None
    for name, m in models.items():
        err = ((m(x).double() - ref).norm() / ref.norm()).item()
        eager = wall_time_us(lambda: m(x), calls=10, reps=3, warmup=2) / 1e3
        graph = graph_time_us(lambda: m(x), calls=2, replays=5, warmup=2) / 1e3
        base = base or (eager, graph)
        rows.append({"model": name, "eager_ms": eager, "graph_ms": graph, "eager_speedup": base[0] / eager,
                     "graph_speedup": base[1] / graph, "rel_err": err,
                     "quantized": len(reports[name].quantized) if name in reports else 0})
        lines.append(f"  {label}{name:17s} eager {eager:7.2f} ({base[0] / eager:.2f}x)  graph {graph:7.2f} "
                     f"({base[1] / graph:.2f}x)  rel. error vs fp32 {err:.3e}")
    return rows, lines


def resnet_rows():
    """ResNet-50 at batch 32: fp16 cuDNN (as built, and with BatchNorm folded into the convs) vs each int8 scheme
    and the int8 chain (BatchNorm folded, w8a8-int8-static, `chain_int8`), eager wall clock and CUDA-graph GPU
    time."""
    base, source = resnet50()
    base = base.cuda().to(memory_format=CL)
    x = torch.randn(32, 3, 224, 224, device="cuda").contiguous(memory_format=CL)
    xh = x.half()
    lines = [f"ResNet-50 ({source}, random weights), batch 32, 224x224, channels_last; eager = wall clock per "
             f"forward, graph = CUDA-graph GPU time per forward (ms):"]
    summary = []
    with torch.no_grad():
        ref = base(x).double()
        models = {"fp16 cuDNN": copy.deepcopy(base).half()}
        reports = {}
        models["fp16 cuDNN, BN folded"] = cnn.fold_batchnorm(copy.deepcopy(base).half().eval()).to(memory_format=CL)
        for scheme in RESNET_SCHEMES:
            q = copy.deepcopy(base).half()
            cals = cnn.calibrate(q, [xh]) if scheme.endswith("static") else None
            reports[scheme] = cnn.quantize_model(q, scheme, calibration=cals)
            models[scheme] = q
        q = cnn.fold_batchnorm(copy.deepcopy(base).half().eval())
        reports["int8 chain"] = cnn.quantize_model(q, "w8a8-int8-static", calibration=cnn.calibrate(q, [xh]))
        models["int8 chain"], chain_report = cnn.chain_int8(q)
        # the same chained model with every kernel launched plainly (programmatic dependent launches off)
        models["int8 chain, plain launch"] = plain_launch(models["int8 chain"])
        rows, more = time_models(models, xh, ref, reports)
        summary += [dict(r, resnet_source=source) for r in rows]
        lines += more
    for scheme, rep in reports.items():
        lines.append(f"  {scheme}: {rep}".replace("\n", "\n    "))
    lines.append(f"  int8 chain: {chain_report}".replace("\n", "\n    "))
    return lines, summary


def cmd_conv(args):
    torch.backends.cudnn.benchmark = True
    batches = (32,) if args.quick else (1, 32)
    shapes = [s for s in RESNET50_CONVS if not args.quick or "3x3" in s[0]]
    rows, failures = [], []
    for b in batches:
        for s in shapes:
            try:
                rows.append(_row(*s, b))
            except Exception as exc:  # e.g. a kernel not built under CUTLASS_GEMM_JIT=0: the other rows still run
                failures.append(f"{s[0]} batch {b}: {type(exc).__name__}: {str(exc)[:240]}")
                print("FAILED", failures[-1], flush=True)
    write_results(args.out, "conv", rows)
    header = ["conv", "batch", "Ci->Co", "k/s", "HW", "path", "cudnn f16", "cudnn f16 no bias", "cudnn bf16",
              "int8 kernel", "int8 e2e", "int8 layer", "int8 static layer", "f16/kernel", "f16/e2e", "f16/layer",
              "f16/static layer", "wall: cudnn f16", "int8 kernel", "int8 e2e", "int8 layer", "f16/layer"]
    table = [[r["conv"], r["batch"], f"{r['ci']}->{r['co']}", f"{r['k']}/{r['stride']}", r["hw"], r["path"],
              *(f"{r[c]:.1f}" for c in ("cudnn_f16", "cudnn_f16_nobias", "cudnn_bf16", "int8_kernel", "int8_e2e",
                                        "int8_layer", "int8_static_layer")),
              r["x_f16_per_kernel"], r["x_f16_per_e2e"], r["x_f16_per_layer"], r["x_f16_per_static_layer"],
              *(f"{r[c + '_wall']:.1f}" for c in ("cudnn_f16", "int8_kernel", "int8_e2e", "int8_layer")),
              r["x_f16_per_layer_wall"]] for r in rows]
    lines = ["GPU time (CUDA graph of 20 calls) then eager wall clock, us per call; cudnn f16: F.conv2d with a bias "
             "(two kernels in PyTorch: the conv, then an elementwise bias add), 'no bias': the conv alone:", ""]
    lines += md_table(header, table)
    chain_rows = [r for r in rows if "int8_chain" in r]
    if chain_rows:
        lines += ["", "int8 chain (GPU time, us): the layer with an int8 input from the previous conv's epilogue; "
                      "chain = int8 out (ReLU, quantized for the next conv), end = bf16 out; against cuDNN fp16 with "
                      "and without a bias:", ""]
        lines += md_table(["conv", "batch", "cudnn f16", "no bias", "int8 chain", "f16/chain", "no bias/chain",
                           "int8 chain end", "f16/end", "no bias/end", "chain, plain launch", "no bias/plain"],
                          [[r["conv"], r["batch"], f"{r['cudnn_f16']:.1f}", f"{r['cudnn_f16_nobias']:.1f}",
                            f"{r['int8_chain']:.1f}", r["x_f16_per_chain"], r["x_f16_nobias_per_chain"],
                            f"{r['int8_chain_end']:.1f}", r["x_f16_per_chain_end"], r["x_f16_nobias_per_chain_end"],
                            f"{r['int8_chain_plain']:.1f}", r["x_f16_nobias_per_chain_plain"]]
                           for r in chain_rows])
    for base, what in (("f16", "cuDNN fp16"), ("f16_nobias", "cuDNN fp16 without a bias")):
        for col in ("kernel", "e2e", "layer", "static_layer", "chain", "chain_end", "chain_plain"):
            key = f"x_{base}_per_{col}"
            three = [r[key] for r in rows if r["k"] == 3 and r["batch"] == 32 and key in r]
            if three:
                lines.append(f"\n3x3 convs at batch 32: {what} / int8 {col} (GPU time) geometric mean "
                             f"{statistics.geometric_mean(three):.2f}x, min {min(three):.2f}x (aim: >= 1.3x)")
    if failures:
        lines += ["", "FAILED rows:"] + [f"  {f}" for f in failures]
    if args.resnet:
        more, summary = resnet_rows()
        lines += [""] + more
        write_results(args.out, "conv_resnet50", summary)
    report(args.out, "conv", lines)


def cmd(args):
    if getattr(args, "weight_only", False) and getattr(args, "kxk", False):
        import bench_conv_wo  # noqa: E402  (the k x k weight-only rows)
        return bench_conv_wo.cmd_conv_wo_kxk(args)
    (cmd_conv_weight_only if getattr(args, "weight_only", False) else cmd_conv)(args)


COMMANDS = {"conv": cmd}
