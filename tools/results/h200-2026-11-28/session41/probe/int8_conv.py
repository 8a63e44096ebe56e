"""Session 41 probe, call 5: which mma variant serves the batch-1 ResNet-50 1x1 convs best with int8 weights (per
channel, as `benchmark.py conv --weight-only`'s w8 column, and group 128 where K allows), and the rules' choice
(wo_heuristics.select_variant, which does not look at the bits) beside; cuDNN fp16 in the same process. GPU time of a
CUDA graph over 20-64 weight copies (bench_common.graph_time_us); every output checked against float64 first. Writes
int8.md / int8.json to the folder given."""
import json
import sys
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from bench_common import graph_time_us, md_table, stamp  # noqa: E402

from cutlass_gemm.ops import wo_heuristics as H  # noqa: E402
from cutlass_gemm.quant import prepack, quantize_weight_only, unpack  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

CL = torch.channels_last
CONVS = [("l1.a", 64, 64, 56), ("l1.c", 64, 256, 56), ("l1.a'", 256, 64, 56), ("l2.a", 256, 128, 56),
         ("l2.c", 128, 512, 28), ("l2.a'", 512, 128, 28), ("l3.a", 512, 256, 28), ("l3.c", 256, 1024, 14),
         ("l3.a'", 1024, 256, 14), ("l4.a", 1024, 512, 14), ("l4.c", 512, 2048, 7), ("l4.a'", 2048, 512, 7)]
MMA = [0, 1, 2, 3, 4, 27, 28, 32, 34]
FORMATS = [(8, None), (8, 128), (4, 128)]


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    ext = extension.load()
    rows = []
    for name, ci, co, hw in CONVS:
        m, n, k = hw * hw, co, ci
        g = torch.Generator().manual_seed(m + n + k)
        w = torch.randn(n, k, generator=g) * k ** -0.5
        x = torch.randn(m, k, device="cuda").half()
        copies = max(20, min(64, -(-(120 << 20) // (n * k * 2))))
        conv = [nn.Conv2d(k, n, 1, bias=False, device="cuda", dtype=torch.float16) for _ in range(copies)]
        x4 = x.reshape(1, hw, hw, k).permute(0, 3, 1, 2)  # channels_last view of the same pixel rows
        it = iter(range(10 ** 9))
        with torch.no_grad():
            cudnn = graph_time_us(lambda: conv[next(it) % copies](x4), calls=copies)
        for bits, group in FORMATS:
            if group and k % group:
                group = 64
            p0 = prepack(quantize_weight_only(w, bits, group, zero_point=False, scale_dtype=torch.float16), device="cuda")
            ps = [(p0.qweight.clone(), p0.scales.clone()) for _ in range(copies)]
            ref = x.double() @ unpack(p0).dequantize(torch.float64).t()
            rule = H.select_variant(m, n, k, bits)
            row = {"case": name, "mnk": f"{m}x{n}x{k}", "bits": bits, "group": group or 0, "rule": rule, "cudnn": cudnn}
            for v in MMA:
                args = lambda q: (x, q[0], q[1], None, None, bits, group or 0, n, 0, v)  # noqa: E731
                y = ext.wo_gemm(*args(ps[0]))
                err = float((y.double() - ref).norm() / ref.norm())
                assert err < 2e-2, (name, bits, group, v, err)
                row[f"v{v}"] = graph_time_us(lambda: ext.wo_gemm(*args(ps[next(it) % copies])), calls=copies)
            times = {c: row[c] for c in row if c.startswith("v")}
            row["best"] = min(times, key=times.get)
            print({c: (round(val, 2) if isinstance(val, float) else val) for c, val in row.items()}, flush=True)
            rows.append(row)
    (out / "int8.json").write_text(json.dumps({"meta": stamp(), "rows": rows}, indent=1))
    cols = [f"v{v}" for v in MMA]
    lines = [json.dumps(stamp()), "", "us per call (CUDA graph over weight copies), fp16 x; rule: wo_heuristics."
             "select_variant; rule/best: the rules' time over the best variant's", ""]
    lines += md_table(["case", "MxNxK", "bits", "group", "cudnn", "rule"] + cols + ["best", "rule/best", "cudnn/best"],
                      [[r["case"], r["mnk"], r["bits"], r["group"], f"{r['cudnn']:.2f}", f"v{r['rule']}"]
                       + [f"{r[c]:.2f}" for c in cols]
                       + [r["best"], round(r[f"v{r['rule']}"] / r[r["best"]], 3), round(r["cudnn"] / r[r["best"]], 3)]
                       for r in rows])
    (out / "int8.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
