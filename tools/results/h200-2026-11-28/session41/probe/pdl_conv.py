"""Session 41 probe, call 4: the batch-1 ResNet-50 1x1 convs (weight-only int4) with the weight-only kernels launched as
programmatic dependents with their CTAs spread per SM (pdl policy 2, the default), without the spread (policy 1), and
(run this file again under CUTLASS_GEMM_PDL=0) as plain launches; plus, per conv, the mma variants near the rules'
choice through ext.wo_gemm. cuDNN fp16 beside in the same process. GPU time of a CUDA graph over 20-64 weight copies
(bench_common.graph_time_us); outputs checked against float64 first. Writes pdl_<tag>.md / .json to the folder given."""
import json
import os
import sys
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from bench_common import graph_time_us, md_table, stamp  # noqa: E402

import cutlass_gemm.nn as cnn  # noqa: E402
from cutlass_gemm.ops import wo_heuristics as H  # noqa: E402
from cutlass_gemm.quant import unpack  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

CL = torch.channels_last
CONVS = [("l1.a", 64, 64, 56), ("l1.c", 64, 256, 56), ("l1.a'", 256, 64, 56), ("l2.a", 256, 128, 56),
         ("l2.c", 128, 512, 28), ("l2.a'", 512, 128, 28), ("l3.a", 512, 256, 28), ("l3.c", 256, 1024, 14),
         ("l3.a'", 1024, 256, 14), ("l4.a", 1024, 512, 14), ("l4.c", 512, 2048, 7), ("l4.a'", 2048, 512, 7)]
EXTRA = [2, 3, 27, 28, 1]


def main(out, tag):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    ext = extension.load()
    policies = (2, 1) if os.environ.get("CUTLASS_GEMM_PDL", "1") != "0" else (2,)
    rows = []
    for name, ci, co, hw in CONVS:
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
        x = x4.permute(0, 2, 3, 1).reshape(m, k)
        layers = [cnn.WeightOnlyConv2d.from_float(c, bits=4, block_size=block) for c in convs]
        w0 = layers[0].linear
        ref = x.double() @ unpack(w0.packed).dequantize(torch.float64).t() + w0.bias.double()
        it = iter(range(10 ** 9))
        row = {"case": name, "mnk": f"{m}x{n}x{k}", "rule": H.select_variant(m, n, k, 4)}
        with torch.no_grad():
            row["cudnn"] = graph_time_us(lambda: convs[next(it) % copies](x4), calls=copies)
            for pol in policies:
                ext.wo_set_pdl_policy(pol)
                y = layers[0](x4).permute(0, 2, 3, 1).reshape(m, n)
                err = float((y.double() - ref).norm() / ref.norm())
                assert err < 2e-2, (name, pol, err)
                row[f"layer p{pol}"] = graph_time_us(lambda: layers[next(it) % copies](x4), calls=copies)
                for v in EXTRA:
                    args = lambda L: (x, L.qweight, L.scales, L.zeros, L.bias, 4, block, n, 0, v)  # noqa: E731
                    yv = ext.wo_gemm(*args(w0))
                    assert float((yv.double() - ref).norm() / ref.norm()) < 2e-2, (name, v)
                    row[f"v{v} p{pol}"] = graph_time_us(lambda: ext.wo_gemm(*args(layers[next(it) % copies].linear)),
                                                        calls=copies)
            ext.wo_set_pdl_policy(2)
        print({kk: (round(vv, 2) if isinstance(vv, float) else vv) for kk, vv in row.items()}, flush=True)
        rows.append(row)
    (out / f"pdl_{tag}.json").write_text(json.dumps({"meta": stamp(), "tag": tag, "rows": rows}, indent=1))
    cols = [c for c in rows[0] if c not in ("case", "mnk", "rule")]
    lines = [json.dumps(stamp()), "", f"{tag}: us per call (CUDA graph over weight copies); layer pP / vV pP: the routed "
             "layer / ext.wo_gemm variant V under weight-only pdl policy P (2: programmatic dependents with the CTA "
             "spread, the default; 1: without the spread); CUTLASS_GEMM_PDL=0: plain launches", ""]
    lines += md_table(["case", "MxNxK", "rule"] + cols,
                      [[r["case"], r["mnk"], f"v{r['rule']}"] + [f"{r[c]:.2f}" for c in cols] for r in rows])
    (out / f"pdl_{tag}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
