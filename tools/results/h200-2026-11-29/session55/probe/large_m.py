"""Session 55 probe (H200): which route serves a weight-only GEMM with many rows fastest. Part C: every distinct
stride-1 1x1 conv of ResNet-50 at batch 8 and 32 (pixel rows M = batch * H * W), fp16, channels_last: cuDNN fp16
without a bias; the layer (`WeightOnlyConv2d`, a 1x1 GEMM: its mixed-input CUTLASS kernel at these rows); the weight
dequantized by the extension's kernel then `F.linear` on the pixel rows (cuBLAS), and then `F.conv2d` (cuDNN); int4
g128 and int8 per channel. Part D: `WeightOnlyLinear` (mixed-input kernel) against dequantize + `F.linear` and fp16
`F.linear` at M = 1024..8192 on 8192^2, 28672 x 4096, 4096 x 14336. GPU time in one CUDA graph cycling over copies of
the layer (bench_common.graph_time_us). Writes large_m.json / .md under argv[1]."""
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, "tools")
import cutlass_gemm.nn as cnn  # noqa: E402
from bench_common import graph_time_us, md_table  # noqa: E402
from bench_conv_wo import _cycling  # noqa: E402
from cutlass_gemm.ops import weight_only_backend  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
torch.backends.cudnn.benchmark = True
CL = torch.channels_last
ext = extension.load()
FMTS = ((4, 128), (8, None))
rows = []


def deq(lin):
    return ext.wo_dequant(lin.qweight, lin.scales, None, lin.bits, lin.group_size or 0, lin.out_features,
                          lin.in_features)


with torch.no_grad():
    for ci, co, hw in ((64, 64, 56), (64, 256, 56), (128, 512, 28), (256, 64, 56), (256, 128, 56), (256, 1024, 14),
                       (512, 128, 28), (512, 256, 28), (512, 2048, 7), (1024, 256, 14), (1024, 512, 14),
                       (2048, 512, 7)):
        copies = max(2, min(16, (64 << 20) // (ci * co * 2)))
        convs = [nn.Conv2d(ci, co, 1, bias=False, device="cuda", dtype=torch.float16).to(memory_format=CL)
                 for _ in range(copies)]
        for batch in (8, 32):
            x = torch.randn(batch, ci, hw, hw, device="cuda").half().contiguous(memory_format=CL)
            xr = x.permute(0, 2, 3, 1).reshape(-1, ci)
            row = {"shape": f"{ci}->{co}@{hw}", "batch": batch, "m": xr.shape[0],
                   "cudnn f16": graph_time_us(_cycling(convs, x), calls=copies)}
            for bits, group in FMTS:
                layers = [cnn.WeightOnlyConv2d.from_float(c, bits=bits, block_size=group) for c in convs]
                lin = layers[0].linear
                row[f"w{bits} route"] = weight_only_backend(xr.shape[0], lin.packed, lin.packed_mixed)
                ref = convs[0](x).float()
                y = layers[0](x).float()
                row[f"w{bits} err"] = float((y - ref).norm() / ref.norm())
                row[f"w{bits} layer"] = graph_time_us(_cycling(layers, x), calls=copies)
                row[f"w{bits} deq+linear"] = graph_time_us(_cycling(
                    [(lambda l=l: F.linear(xr, deq(l.linear)[:, :ci])) for l in layers]), calls=copies)
                row[f"w{bits} deq+conv"] = graph_time_us(_cycling(
                    [(lambda l=l: F.conv2d(x, deq(l.linear)[:, :ci].reshape(co, ci, 1, 1))) for l in layers]), calls=copies)
                row[f"w{bits} layer/deq+linear"] = round(row[f"w{bits} layer"] / row[f"w{bits} deq+linear"], 3)
                del layers
            rows.append(row)
            print(row, flush=True)
    for n, k in ((8192, 8192), (28672, 4096), (4096, 14336)):
        copies = 2
        fl = [nn.Linear(k, n, bias=False, device="cuda", dtype=torch.float16) for _ in range(copies)]
        qs = {bits: [cnn.WeightOnlyLinear.from_float(f, bits=bits, group_size=group) for f in fl] for bits, group in FMTS}
        for m in (1024, 2048, 4096, 8192):
            x = torch.randn(m, k, device="cuda").half()
            row = {"shape": f"{n}x{k}", "batch": 0, "m": m,
                   "cudnn f16": graph_time_us(_cycling([(lambda f=f: F.linear(x, f.weight)) for f in fl]), calls=copies)}
            for bits, group in FMTS:
                layers = qs[bits]
                row[f"w{bits} route"] = weight_only_backend(m, layers[0].packed, layers[0].packed_mixed)
                row[f"w{bits} err"] = None
                row[f"w{bits} layer"] = graph_time_us(_cycling(layers, x), calls=copies)
                row[f"w{bits} deq+linear"] = graph_time_us(_cycling(
                    [(lambda l=l: F.linear(x, deq(l))) for l in layers]), calls=copies)
                row[f"w{bits} deq+conv"] = None
                row[f"w{bits} layer/deq+linear"] = round(row[f"w{bits} layer"] / row[f"w{bits} deq+linear"], 3)
            rows.append(row)
            print(row, flush=True)
        del fl, qs
(out / "large_m.json").write_text(json.dumps(rows, indent=1))
(out / "large_m.md").write_text("'cudnn f16' is fp16 F.linear for the linear rows (batch 0)\n\n"
                                + "\n".join(md_table(list(rows[0]), [[round(v, 2) if isinstance(v, float) else v
                                                                      for v in r.values()] for r in rows])) + "\n")
