"""Session 41 probe: the batch-1 ResNet-50 1x1 convs (weight-only int4) against cuDNN fp16, per mma variant, with the
split-K partial sums added through the global workspace (cluster 0) or in a thread block cluster (cluster 1), at the
plan's split count and at forced ones; variants 35-37 are this session's candidates (wo_launch.cuh kWoVariants).

One process, fp16, GPU time of a CUDA graph calling 20-64 copies once each (bench_common.graph_time_us: weights cycle
so none sits in L2 from the call before). Every setting's output is checked against float64 on the dequantized weight
before it is timed, and the cluster output bit for bit against the workspace output of the same variant and splits.
Writes sweep.md and sweep.json to the folder given."""
import json
import sys
from pathlib import Path

import torch
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
VARIANTS = [1, 2, 3, 4, 27, 28, 32, 34, 35, 36, 37]
FORCED_V = [1, 4, 28, 36]
FORCED_S = [1, 2, 4, 8]


def rel(y, ref):
    return float((y.double() - ref).norm() / ref.norm())


def case(ext, name, ci, co, hw):
    m, n, k = hw * hw, co, ci
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    copies = max(20, min(64, -(-(120 << 20) // (n * k * 2))))
    block = 128 if k % 128 == 0 else 64
    convs = []
    for _ in range(copies):
        c = nn.Conv2d(k, n, 1, device="cuda", dtype=torch.float16)
        with torch.no_grad():
            c.weight.copy_(torch.randn(n, k, 1, 1, device="cuda", generator=g) * k ** -0.5)
        convs.append(c)
    x4 = torch.randn(1, k, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
    x = x4.permute(0, 2, 3, 1).reshape(m, k)  # the pixel rows (a view: channels_last)
    layers = [cnn.WeightOnlyConv2d.from_float(c, bits=4, block_size=block) for c in convs]
    wo = [layer.linear for layer in layers]
    it = iter(range(10 ** 9))
    row = {"case": name, "m": m, "n": n, "k": k}
    with torch.no_grad():
        row["cudnn"] = graph_time_us(lambda: convs[next(it) % copies](x4), calls=copies)
        ext.wo_set_cluster_reduce(0)
        row["layer"] = graph_time_us(lambda: layers[next(it) % copies](x4), calls=copies)
        ext.wo_set_cluster_reduce(1)
        row["layer_cluster"] = graph_time_us(lambda: layers[next(it) % copies](x4), calls=copies)
    w0 = wo[0]
    ref = x.double() @ unpack(w0.packed).dequantize(torch.float64).t() + w0.bias.double()
    cells = {}
    for v in VARIANTS:
        for s in [0] + (FORCED_S if v in FORCED_V and k >= 512 else []):
            for cl in (0, 1):
                ext.wo_set_cluster_reduce(cl)
                info = ext.wo_plan_info(m, n, k, 4, False, False, v)
                splits = info[2] if s == 0 else s
                if cl and not 2 <= splits <= 8:
                    continue
                args = lambda L: (x, L.qweight, L.scales, L.zeros, L.bias, 4, block, n, s, v)  # noqa: E731
                y = ext.wo_gemm(*args(w0))
                err = rel(y, ref)
                key = f"v{v} s{s} c{cl}"
                if not err < 2e-2:
                    cells[key] = {"note": f"WRONG {err:.3g}"}
                    continue
                same = None
                if cl:
                    ext.wo_set_cluster_reduce(0)
                    same = bool(torch.equal(y, ext.wo_gemm(*args(w0))))
                    ext.wo_set_cluster_reduce(1)
                t = graph_time_us(lambda: ext.wo_gemm(*args(wo[next(it) % copies])), calls=copies)
                cells[key] = {"us": t, "splits": splits, "err": err, "same": same}
    ext.wo_set_cluster_reduce(0)
    row["cells"] = cells
    ok = {kk: c["us"] for kk, c in cells.items() if "us" in c}
    best = min(ok, key=ok.get)
    row["best"], row["best_us"] = best, ok[best]
    print(f"{name} {m}x{n}x{k}: cudnn {row['cudnn']:.2f} layer {row['layer']:.2f} / cl {row['layer_cluster']:.2f} "
          f"best {best} {ok[best]:.2f} ({row['cudnn'] / ok[best]:.2f}x)", flush=True)
    return row


WIDE = [(16, 28672, 4096), (16, 8192, 8192), (24, 4096, 4096), (32, 8192, 8192), (32, 4096, 14336), (48, 8192, 8192),
        (48, 4096, 4096), (64, 4096, 4096), (64, 8192, 8192), (33, 1024, 4096), (64, 2048, 2048), (128, 1024, 4096),
        (256, 2048, 2048)]


def wide(ext):
    """Linear shapes whose routed small-M variant (wo_heuristics.select_variant) is an mma kernel: the plan's splits
    with the sums through the workspace and through a cluster, int4 g128 and int8 per channel, fp16."""
    from cutlass_gemm.ops import wo_heuristics as H
    from cutlass_gemm.quant import prepack, quantize_weight_only
    rows = []
    for m, n, k in WIDE:
        for bits, group in ((4, 128), (8, None)):
            v = H.select_variant(m, n, k, bits)
            if not H.VARIANTS.get(v, ("mma",))[0].startswith("mma"):
                continue
            copies = max(4, min(64, -(-(120 << 20) // (n * k * bits // 8))))
            g = torch.Generator().manual_seed(m + n + k + bits)
            w = torch.randn(n, k, generator=g)
            p0 = prepack(quantize_weight_only(w, bits, group, zero_point=False, scale_dtype=torch.float16), device="cuda")
            ps = [(p0.qweight.clone(), p0.scales.clone()) for _ in range(copies)]  # distinct memory: no L2 reuse
            x = torch.randn(m, k, device="cuda").half()
            ref = x.double() @ unpack(p0).dequantize(torch.float64).t()
            it = iter(range(10 ** 9))
            cells = {}
            for cl in (0, 1):
                ext.wo_set_cluster_reduce(cl)
                info = ext.wo_plan_info(m, n, k, bits, False, False, v)
                args = lambda p: (x, p[0], p[1], None, None, bits, group or 0, n, 0, v)  # noqa: E731
                y = ext.wo_gemm(*args(ps[0]))
                err = rel(y, ref)
                assert err < 2e-2, (m, n, k, bits, v, cl, err)
                cells[cl] = (graph_time_us(lambda: ext.wo_gemm(*args(ps[next(it) % copies])), calls=copies),
                             info[2], info[6], y)
            ext.wo_set_cluster_reduce(0)
            same = bool(torch.equal(cells[0][3], cells[1][3]))
            rows.append([f"{m}x{n}x{k}", bits, f"v{v}", cells[0][1], f"{cells[0][0]:.2f}", f"{cells[1][0]:.2f}",
                         cells[1][2], round(cells[0][0] / cells[1][0], 3), same])
            print(rows[-1], flush=True)
    return rows


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    ext = extension.load()
    assert ext is not None, "extension"
    rows = [case(ext, *c) for c in CONVS]
    (out / "sweep.json").write_text(json.dumps({"meta": stamp(), "rows": rows}, indent=1))
    lines = [json.dumps(stamp()), "", "GPU time us (CUDA graph of 20-64 copies), fp16 x, int4 g128 (g64 at K = 64). "
             "cudnn: F.conv2d fp16 channels_last; layer: WeightOnlyConv2d as routed (cluster reduce off / on); "
             "cell 'vV sS cC': ext.wo_gemm variant V, forced splits S (0: the plan's), C 1: split-K sums in a cluster "
             "(* = not bit-identical to C 0)", ""]
    table = []
    for r in rows:
        for key, c in sorted(r["cells"].items(), key=lambda kv: kv[1].get("us", 1e9)):
            table.append([r["case"], f"{r['m']}x{r['n']}x{r['k']}", f"{r['cudnn']:.2f}", f"{r['layer']:.2f}",
                          f"{r['layer_cluster']:.2f}", key, c.get("splits", "-"),
                          f"{c['us']:.2f}" if "us" in c else c["note"],
                          round(r["cudnn"] / c["us"], 3) if "us" in c else "-",
                          "" if c.get("same") in (None, True) else "*"])
    lines += md_table(["case", "MxNxK", "cudnn", "layer", "layer cl", "cell", "splits", "us", "cudnn/us", "bits"], table)
    summary = [[r["case"], f"{r['m']}x{r['n']}x{r['k']}", f"{r['cudnn']:.2f}", f"{r['layer']:.2f}",
                f"{r['layer_cluster']:.2f}", r["best"], f"{r['best_us']:.2f}", round(r["cudnn"] / r["layer"], 3),
                round(r["cudnn"] / r["best_us"], 3)] for r in rows]
    lines = lines[:2] + ["## best per conv", ""] + md_table(
        ["case", "MxNxK", "cudnn", "layer", "layer cl", "best", "us", "cudnn/layer", "cudnn/best"], summary) + \
        ["", "## every cell, fastest first", ""] + lines[2:]
    lines += ["", "## linear layers on mma variants: split-K sums through the workspace (c0) or a cluster (c1)", ""]
    lines += md_table(["MxNxK", "bits", "variant", "splits", "c0 us", "c1 us", "cluster taken", "c0/c1", "same bits"],
                      wide(ext))
    (out / "sweep.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
