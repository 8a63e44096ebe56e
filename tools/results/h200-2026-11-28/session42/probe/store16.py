"""Session 42 probe: the weight-only mma kernels' epilogue change (wo_gemm.cuh): the bias staged in shared memory with
the first stage (always on), and 16-byte output stores after a transpose within each quad of lanes (ext.wo_set_store16:
1 the default, 0 the 4-byte stores of before), on the batch-1 ResNet-50 1x1 convs and on linear layers the mma kernels
serve, each with and without a bias, int4 g128 (g64 where K = 64). The two store forms timed in alternation (on, off,
off, on; the mean of each pair) in one process, outputs compared bit for bit and against float64 first; cuDNN fp16
with and without a bias beside on the convs. GPU time of a CUDA graph over 20-64 weight copies
(bench_common.graph_time_us). Writes store16.md / .json to the folder given."""
import json
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
LINEAR = [(32, 4096, 4096), (48, 4096, 4096), (32, 8192, 8192), (64, 2048, 2048), (256, 1024, 4096), (128, 2048, 2048)]


def _timed_pair(ext, fn, calls):
    t = {1: [], 0: []}
    for s in (1, 0, 0, 1):
        ext.wo_set_store16(s)
        t[s].append(graph_time_us(fn, calls=calls))
    ext.wo_set_store16(1)
    return sum(t[1]) / 2, sum(t[0]) / 2


def _case(ext, name, m, n, k, hw, bias):
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    copies = max(20, min(64, -(-(120 << 20) // (n * k * 2))))
    block = 128 if k % 128 == 0 else 64
    mods = []
    for _ in range(copies):
        mod = nn.Conv2d(k, n, 1, bias=bias, device="cuda", dtype=torch.float16) if hw else \
            nn.Linear(k, n, bias=bias, device="cuda", dtype=torch.float16)
        with torch.no_grad():
            mod.weight.copy_(torch.randn(mod.weight.shape, device="cuda", generator=g) * k ** -0.5)
        mods.append(mod)
    if hw:
        xin = torch.randn(1, k, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
        x = xin.permute(0, 2, 3, 1).reshape(m, k)
        layers = [cnn.WeightOnlyConv2d.from_float(c, bits=4, block_size=block) for c in mods]
        lin = layers[0].linear
        flat = lambda y: y.permute(0, 2, 3, 1).reshape(m, n)  # noqa: E731
    else:
        xin = x = torch.randn(m, k, device="cuda", generator=g).half()
        layers = [cnn.WeightOnlyLinear.from_float(mm, bits=4, group_size=block) for mm in mods]
        lin = layers[0]
        flat = lambda y: y  # noqa: E731
    ref = x.double() @ unpack(lin.packed).dequantize(torch.float64).t()
    if bias:
        ref = ref + lin.bias.double()
    outs = {}
    for s in (1, 0):
        ext.wo_set_store16(s)
        y = flat(layers[0](xin))
        err = float((y.double() - ref).norm() / ref.norm())
        assert err < 2e-2, (name, bias, s, err)
        outs[s] = y.clone()
    ext.wo_set_store16(1)
    assert torch.equal(outs[0], outs[1]), f"{name}: the store forms differ"
    it = iter(range(10 ** 9))
    row = {"case": name, "mnk": f"{m}x{n}x{k}", "bias": bias, "rule": H.select_variant(m, n, k, 4)}
    with torch.no_grad():
        row["store16"], row["store4"] = _timed_pair(ext, lambda: layers[next(it) % copies](xin), copies)
        if hw:
            row["cudnn"] = graph_time_us(lambda: mods[next(it) % copies](xin), calls=copies)
    row["store4/store16"] = row["store4"] / row["store16"]
    return row


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    torch.backends.cudnn.benchmark = True
    ext = extension.load()
    rows = []
    cases = [(name, hw * hw, co, ci, hw) for name, ci, co, hw in CONVS] + \
            [(f"linear {m}x{n}x{k}", m, n, k, 0) for m, n, k in LINEAR]
    for case in cases:
        for bias in (True, False):
            row = _case(ext, *case, bias)
            print({kk: (round(vv, 3) if isinstance(vv, float) else vv) for kk, vv in row.items()}, flush=True)
            rows.append(row)
    (out / "store16.json").write_text(json.dumps({"meta": stamp(), "rows": rows}, indent=1))
    lines = [json.dumps(stamp()), "", "us per call (CUDA graph over weight copies), int4 g128 (g64 at K = 64), fp16; "
             "store16 / store4: the mma kernels' 16-byte / 4-byte output stores (ext.wo_set_store16), timed in "
             "alternation; both with the bias staged in shared memory; cudnn: F.conv2d fp16 with / without the bias", ""]
    lines += md_table(["case", "MxNxK", "bias", "rule", "store16", "store4", "store4/store16", "cudnn"],
                      [[r["case"], r["mnk"], r["bias"], f"v{r['rule']}", f"{r['store16']:.2f}", f"{r['store4']:.2f}",
                        f"{r['store4/store16']:.3f}", f"{r['cudnn']:.2f}" if "cudnn" in r else ""] for r in rows])
    (out / "store16.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
