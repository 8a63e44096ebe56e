"""Session 55 probe (H200). Part A: the weight-only ResNet-50 (w4a16 / w8a16, channels_last, fp16) eager, at batch 8 /
16 / 32, with the layer's eager C++ entry serving the "dequant_cudnn" route (this session) against the same model with
that route taken by the op in Python (conv_wo._layer_plan answering 0 instead of DEQUANT_CUDNN, session 54's path), in
alternating repetitions in one process, fp16 cuDNN beside them; outputs of the two compared bit for bit. Part B: the
weight dequantization kernel (extension wo_dequant) in its forms (per-word 4-byte stores, session 54; staged
through shared memory into 16-byte row chunks, one or four 32 x 64 tiles per CTA, and the rule choosing between those
two, this session) on every distinct ResNet-50 conv weight and three linear
weights, GPU time in one CUDA graph cycling over copies, against a copy of the same byte count and the byte floor.
Writes eager_route.json / .md and dequant.json / .md under argv[1]."""
import copy
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, "tools")
import cutlass_gemm.nn as cnn  # noqa: E402
from bench_common import graph_time_us, md_table  # noqa: E402
from bench_conv_wo import _cycling  # noqa: E402
from cutlass_gemm.ops import conv_wo  # noqa: E402
from cutlass_gemm.quant import prepack, quantize_weight_only  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402
from resnet50 import RESNET50_CONVS, resnet50  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
part = sys.argv[2] if len(sys.argv) > 2 else "ab"
torch.backends.cudnn.benchmark = True
CL = torch.channels_last
ext = extension.load()
real_plan = conv_wo._layer_plan


def op_route(*a):
    v = real_plan(*a)
    return 0 if v == conv_wo.DEQUANT_CUDNN else v


def wall_ms(model, x, calls=10):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        model(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / calls


if "a" in part:
    base, source = resnet50()
    base = base.cuda().to(memory_format=CL).eval().half()
    models = {"fp16 cuDNN": base}
    for scheme in ("w4a16", "w8a16"):
        q = copy.deepcopy(base)
        cnn.quantize_model(q, scheme)
        models[scheme] = q
    rows = []
    with torch.no_grad():
        for batch in (8, 16, 32):
            x = torch.randn(batch, 3, 224, 224, device="cuda").half().contiguous(memory_format=CL)
            same = {}
            for scheme in ("w4a16", "w8a16"):
                y_cpp = models[scheme](x)
                conv_wo._layer_plan = op_route
                y_op = models[scheme](x)
                conv_wo._layer_plan = real_plan
                same[scheme] = bool(torch.equal(y_cpp, y_op))
            times = {k: [] for k in ("fp16", "w4a16 C++", "w4a16 op", "w8a16 C++", "w8a16 op")}
            for name in times:  # warm-up
                wall_ms(models["fp16 cuDNN" if name == "fp16" else name.split()[0]], x, 3)
            for _ in range(7):  # alternating repetitions: every form sees the same host and GPU state
                for name in times:
                    if name.endswith("op"):
                        conv_wo._layer_plan = op_route
                    times[name].append(wall_ms(models["fp16 cuDNN" if name == "fp16" else name.split()[0]], x))
                    conv_wo._layer_plan = real_plan
            row = {"batch": batch, **{f"{k} ms": round(statistics.median(v), 3) for k, v in times.items()},
                   "w4a16 equal": same["w4a16"], "w8a16 equal": same["w8a16"]}
            for s in ("w4a16", "w8a16"):
                row[f"{s} op / C++"] = round(row[f"{s} op ms"] / row[f"{s} C++ ms"], 3)
                row[f"fp16 / {s} C++"] = round(row["fp16 ms"] / row[f"{s} C++ ms"], 3)
            rows.append(row)
            print(row, flush=True)
    (out / "eager_route.json").write_text(json.dumps({"source": source, "rows": rows}, indent=1))
    (out / "eager_route.md").write_text("\n".join(md_table(list(rows[0]), [list(r.values()) for r in rows])) + "\n")

if "b" in part:
    copy_gbs = None
    big = torch.empty(1 << 28, dtype=torch.uint8, device="cuda")
    big2 = torch.empty_like(big)
    t = graph_time_us(lambda: big2.copy_(big), calls=5)
    copy_gbs = 2 * big.numel() / t / 1e3
    shapes = sorted({(co, ci * k * k) for _, ci, co, k, _, _ in RESNET50_CONVS})
    shapes += [(8192, 8192), (28672, 4096), (4096, 14336)]
    rows = []
    for n, kk in shapes:
        for bits, group in ((4, 128), (8, None)):
            kp = -(-kk // 128) * 128
            w = torch.randn(n, kp)
            packed = prepack(quantize_weight_only(w, bits, group, scale_dtype=torch.float16), device="cuda")
            copies = max(2, min(16, (200 << 20) // (n * kp * 2)))
            ps = [packed] + [dataclasses.replace(packed, qweight=packed.qweight.clone(), scales=packed.scales.clone())
                             for _ in range(copies - 1)]
            row = {"n": n, "k": kp, "bits": bits, "copies": copies}
            res = {}
            forms = {0: "per_word", 2: "staged1", 3: "staged4", 1: "auto"}
            for form, fname in forms.items():
                ext.wo_set_dequant_staged(form)
                res[form] = ext.wo_dequant(ps[0].qweight, ps[0].scales, None, bits, group or 0, n, kp)
                fns = [(lambda p=p: ext.wo_dequant(p.qweight, p.scales, None, bits, group or 0, n, kp)) for p in ps]
                row[f"{fname} us"] = round(graph_time_us(_cycling(fns), calls=copies), 2)
            ext.wo_set_dequant_staged(1)
            row["equal"] = all(bool(torch.equal(res[0], r)) for r in res.values())
            moved = n * kp * (bits / 8 + 2)
            srcs = [torch.empty(n * kp * 2, dtype=torch.uint8, device="cuda") for _ in range(copies)]
            dst = torch.empty(n * kp * 2, dtype=torch.uint8, device="cuda")
            row["copy same out us"] = graph_time_us(_cycling([(lambda s=s: dst.copy_(s)) for s in srcs]), calls=copies)
            row["copy same out us"] = round(row["copy same out us"], 2)
            row["floor us"] = round(moved / (copy_gbs * 1e3), 2)
            for f in forms.values():
                row[f"{f} % floor"] = round(100 * row["floor us"] / row[f"{f} us"], 1)
            rows.append(row)
            print(row, flush=True)
            del ps, srcs, dst
    (out / "dequant.json").write_text(json.dumps({"copy_gbs": copy_gbs, "rows": rows}, indent=1))
    (out / "dequant.md").write_text(f"copy rate {copy_gbs:.0f} GB/s\n\n"
                                    + "\n".join(md_table(list(rows[0]), [list(r.values()) for r in rows])) + "\n")
