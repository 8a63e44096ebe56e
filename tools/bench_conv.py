"""`python tools/benchmark.py conv [--quick] [--resnet]`: int8 convolutions against cuDNN, channels_last.

Rows: ResNet-50's distinct conv shapes (tools/resnet50.py: 3x3 and 1x1, 56x56 down to 7x7, stride 1 and 2) at
batch 1 and 32. Columns (us, GPU time, medians of batches queued behind a sleep; bench_common.gpu_time_us):
- cudnn_f16 / cudnn_bf16: F.conv2d(x, w, bias) on channels_last fp16 / bf16 tensors, cudnn.benchmark on;
- int8_kernel: the int8 kernel alone on already-quantized operands, bias fused, bf16 out (k x k / strided: the
  implicit-GEMM op `conv2d_int8_igemm`; 1x1 stride 1: the fused GEMM `scaled_mm` on the pixel rows; both from
  the kernels a bf16 ResNet-50 uses, so nothing outside `--conv --resnet` and the prebuilt set is built);
- int8_e2e: `conv2d_int8` from the fp16 activation (dynamic per-tensor quantization kernel + conv kernel; 1x1:
  per-pixel quantization + GEMM), what `Int8Conv2d` runs;
and the ratios cudnn_f16 / int8_kernel and cudnn_f16 / int8_e2e (> 1: int8 faster). The aim (issue 14):
>= 1.3x on the 3x3 convs at batch 32. `--resnet` adds the whole network at batch 32 (fp16 cuDNN model vs
`quantize_model(model, "w8a8-int8")`, both channels_last, plus the int8 model's relative error vs fp32).
"""
import statistics

import torch
import torch.nn.functional as F

from bench_common import gpu_time_us, md_table, report, write_results
from resnet50 import RESNET50_CONVS, resnet50

import cutlass_gemm  # noqa: F401  (registers the ops)
from cutlass_gemm import conv2d_int8
from cutlass_gemm.ops import gemm
from cutlass_gemm.ops.conv import conv_unsupported_reason
from cutlass_gemm.ops.conv_igemm import conv2d_int8_igemm

CL = torch.channels_last


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
    row["cudnn_f16"] = gpu_time_us(lambda: F.conv2d(x, w, b, stride, pad))
    row["cudnn_bf16"] = gpu_time_us(lambda: F.conv2d(xb, wb, bb, stride, pad))
    is_gemm = conv_unsupported_reason(k, stride, pad) is None
    if is_gemm:
        rows = torch.randint(-128, 128, (batch * hw * hw, ci), dtype=torch.int8, device="cuda", generator=g)
        b_t = w_q.reshape(co, ci).t()
        sa = torch.rand(batch * hw * hw, 1, device="cuda") * 1e-2
        row["int8_kernel"] = gpu_time_us(lambda: gemm.scaled_mm(rows, b_t, sa, w_scale, torch.bfloat16, bb))
        row["path"] = "gemm"
    else:
        xq = torch.randint(-128, 128, (batch, hw, hw, ci), dtype=torch.int8, device="cuda", generator=g)
        w_krsc = w_q.permute(0, 2, 3, 1)
        sx = torch.tensor([0.02], device="cuda")
        sw = w_scale.reshape(-1)
        row["int8_kernel"] = gpu_time_us(lambda: conv2d_int8_igemm(xq, w_krsc, sx, sw, bb, (stride, stride),
                                                                   (pad, pad), (1, 1), None, torch.bfloat16))
        row["path"] = "implicit_gemm"
    row["int8_e2e"] = gpu_time_us(lambda: conv2d_int8(x, w_q, w_scale, bb, stride=stride, padding=pad,
                                                      out_dtype=torch.bfloat16))
    row["x_f16_per_kernel"] = round(row["cudnn_f16"] / row["int8_kernel"], 3)
    row["x_f16_per_e2e"] = round(row["cudnn_f16"] / row["int8_e2e"], 3)
    return row


def _resnet(out):
    import copy
    import cutlass_gemm.nn as cnn
    base, source = resnet50()
    base = base.cuda().to(memory_format=CL)
    x = torch.randn(32, 3, 224, 224, device="cuda").contiguous(memory_format=CL)
    with torch.no_grad():
        ref = base(x).double()
        f16 = copy.deepcopy(base).half()
        q = copy.deepcopy(base).half()
        report_q = cnn.quantize_model(q, "w8a8-int8")
        xh = x.half()
        err = ((q(xh).double() - ref).norm() / ref.norm()).item()
        err16 = ((f16(xh).double() - ref).norm() / ref.norm()).item()
        t16 = gpu_time_us(lambda: f16(xh), batch=5, batches=5)
        t8 = gpu_time_us(lambda: q(xh), batch=5, batches=5)
    lines = [f"ResNet-50 ({source}, random weights), batch 32, 224x224, channels_last:",
             f"  fp16 cuDNN {t16:.0f} us; int8 {t8:.0f} us ({t16 / t8:.2f}x); rel. error vs fp32: int8 {err:.3e}, "
             f"fp16 {err16:.3e}", f"  {report_q}".replace("\n", "\n  ")]
    return lines, {"resnet_source": source, "fp16_us": t16, "int8_us": t8, "speedup": t16 / t8, "rel_err_int8": err,
                   "rel_err_fp16": err16, "quantized": len(report_q.quantized), "skipped": len(report_q.skipped)}


def cmd_conv(args):
    torch.backends.cudnn.benchmark = True
    batches = (32,) if args.quick else (1, 32)
    shapes = [s for s in RESNET50_CONVS if not args.quick or "3x3" in s[0]]
    rows = [_row(*s, b) for b in batches for s in shapes]
    write_results(args.out, "conv", rows)
    header = ["conv", "batch", "Ci->Co", "k/s", "HW", "path", "cudnn f16", "cudnn bf16", "int8 kernel", "int8 e2e",
              "f16/kernel", "f16/e2e"]
    table = [[r["conv"], r["batch"], f"{r['ci']}->{r['co']}", f"{r['k']}/{r['stride']}", r["hw"], r["path"],
              f"{r['cudnn_f16']:.1f}", f"{r['cudnn_bf16']:.1f}", f"{r['int8_kernel']:.1f}", f"{r['int8_e2e']:.1f}",
              r["x_f16_per_kernel"], r["x_f16_per_e2e"]] for r in rows]
    three = [r["x_f16_per_kernel"] for r in rows if r["k"] == 3 and r["batch"] == 32]
    lines = md_table(header, table)
    if three:
        lines.append(f"\n3x3 convs at batch 32: cuDNN fp16 / int8 kernel geometric mean "
                     f"{statistics.geometric_mean(three):.2f}x, min {min(three):.2f}x (aim: >= 1.3x)")
    if args.resnet:
        more, summary = _resnet(args.out)
        lines += [""] + more
        write_results(args.out, "conv_resnet50", [summary])
    report(args.out, "conv", lines)


COMMANDS = {"conv": cmd_conv}
