"""Session 54 probe: where the weight-only implicit-GEMM conv kernel should hand off to dequantize + cuDNN, and which
convolution variant serves each ResNet-50 k x k / strided shape. For every shape of tools/bench_conv_wo.KXK at batch
1, 2, 4, 8, 16: the int4 g128 kernel of each variant (extension `wo_conv`, forced), the dequantize + cuDNN route
(extension `wo_dequant`, then F.conv2d), and cuDNN fp16 without a bias, GPU time in one CUDA graph cycling over copies
whose weights exceed L2 (bench_common.graph_time_us); at batch 1 the int8 per-channel kernels too. Writes handoff.json
and handoff.md under $OUT (argv[1])."""
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, "tools")
import cutlass_gemm.nn as cnn  # noqa: E402
from bench_common import graph_time_us, md_table  # noqa: E402
from bench_conv_wo import KXK, _copies, _cycling  # noqa: E402
from cutlass_gemm.ops import wo_heuristics  # noqa: E402
from cutlass_gemm.quant.conv_weight import conv_weight_from_matrix  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
torch.backends.cudnn.benchmark = True
ext = extension.load()
CL = torch.channels_last
rows = []
for name, ci, co, k, stride, hw in KXK:
    pad = k // 2
    n = _copies(ci, co, k)
    g = torch.Generator(device="cuda").manual_seed(0)
    bare = [nn.Conv2d(ci, co, k, stride, pad, bias=False, device="cuda", dtype=torch.float16) for _ in range(n)]
    with torch.no_grad():
        for c in bare:
            c.weight.copy_(torch.randn(co, ci, k, k, device="cuda", generator=g) * (ci * k * k) ** -0.5)
    for bits, block in ((4, 128), (8, None)):
        layers = [cnn.WeightOnlyConv2d.from_float(c, bits=bits, block_size=block) for c in bare]
        kp = layers[0].linear.in_features
        geometry = [k, k, stride, stride, pad, pad, 1, 1]
        for batch in ((1, 2, 4, 8, 16) if bits == 4 else (1,)):
            x = torch.randn(batch, ci, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
            nhwc = x.permute(0, 2, 3, 1)
            pq = (hw + 2 * pad - k) // stride + 1
            m = batch * pq * pq
            row = {"conv": name, "bits": bits, "batch": batch, "m": m, "n": co, "k": kp, "mnk": m * co * kp,
                   "chosen": wo_heuristics.conv_variant(m, co, kp)}
            with torch.no_grad():
                for v in wo_heuristics.CONV_VARIANTS:
                    calls = [(lambda l=l, v=v: ext.wo_conv(nhwc, l.linear.qweight, l.linear.scales, None, None, bits,
                                                           block or 0, co, geometry, 0, v)) for l in layers]
                    row[f"v{v}"] = graph_time_us(_cycling(calls), calls=n)
                row["best"] = min(wo_heuristics.CONV_VARIANTS, key=lambda v: row[f"v{v}"])
                deq = [(lambda l=l: F.conv2d(x, conv_weight_from_matrix(ext.wo_dequant(
                    l.linear.qweight, l.linear.scales, None, bits, block or 0, co, kp), k, k, ci), None, stride, pad))
                    for l in layers[:8]]
                row["dequant_cudnn"] = graph_time_us(_cycling(deq), calls=8)
                row["cudnn_nobias"] = graph_time_us(_cycling(bare, x), calls=n)
            rows.append(row)
            print(json.dumps(row), flush=True)
        del layers
(out / "handoff.json").write_text(json.dumps(rows, indent=1) + "\n")


def best_time(r):
    return r["v%d" % r["best"]]


header = ["conv", "bits", "batch", "M", "N", "K", "MNK/2^27", "v1", "v2", "v3", "v28", "best", "chosen", "dequant+cudnn",
          "cudnn no bias", "best kernel / dequant+cudnn"]
table = [[r["conv"], r["bits"], r["batch"], r["m"], r["n"], r["k"], f"{r['mnk'] / 2 ** 27:.2f}",
          *(f"{r[f'v{v}']:.2f}" for v in wo_heuristics.CONV_VARIANTS), r["best"], r["chosen"],
          f"{r['dequant_cudnn']:.2f}", f"{r['cudnn_nobias']:.2f}", f"{best_time(r) / r['dequant_cudnn']:.2f}"]
         for r in rows]
(out / "handoff.md").write_text("\n".join(md_table(header, table)) + "\n")
print("\n".join(md_table(header, table)))
