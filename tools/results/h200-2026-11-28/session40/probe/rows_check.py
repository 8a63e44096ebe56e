"""Session 40 probe, call 2: (a) narrow layers at 33..64 rows: the row-block rule's variant (wo_heuristics.select_variant)
against the small-M table's catch-all choice (what these rows took before) and the mixed-input kernel; (b) forced split-K
counts for the row-block variants on the slowest batch-1 1x1 convs. fp16, int4 g128, GPU time of a CUDA graph over
20-64 weight copies (bench_common.graph_time_us); every output checked against float64 first. Writes check.md."""
import sys
from pathlib import Path

import torch
from torch import nn

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from bench_common import graph_time_us, md_table, stamp  # noqa: E402

import cutlass_gemm.nn as cnn  # noqa: E402
from cutlass_gemm.ops import wo_heuristics as H  # noqa: E402
from cutlass_gemm.ops.weight_only import weight_only_mm  # noqa: E402
from cutlass_gemm.quant import unpack  # noqa: E402
from cutlass_gemm.quant.prepack import LAYOUT_MIXED  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402


def table_choice(m, n, k, bits=4):
    for b, mm, rn, rk, v in H.TABLE:
        if b == bits and m <= mm and rn in (None, n) and rk in (None, k) and m <= H.variant_rows(v):
            return v
    return H.DEFAULT


def layers(m, n, k, block=128):
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    copies = max(20, min(64, -(-(120 << 20) // (n * k * 2))))
    out = []
    for _ in range(copies):
        lin = nn.Linear(k, n, device="cuda", dtype=torch.float16)
        with torch.no_grad():
            lin.weight.copy_(torch.randn(n, k, device="cuda", generator=g) * k ** -0.5)
        out.append(cnn.WeightOnlyLinear.from_float(lin, bits=4, group_size=block, large_m_backend="cutlass_mixed"))
    x = torch.randn(m, k, device="cuda", generator=g).half()
    ref = x.double() @ unpack(out[0].packed).dequantize(torch.float64).t() + out[0].bias.double()
    return out, x, ref


def timed(fn_of, ls, ref, what):
    y = fn_of(ls[0])()
    err = float((y.double() - ref).norm() / ref.norm())
    assert err < 2e-2, f"{what}: rel err {err}"
    it = iter(range(10 ** 9))
    return graph_time_us(lambda: fn_of(ls[next(it) % len(ls)])(), calls=len(ls))


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ext = extension.load()
    lines = [str(stamp()), "", "(a) narrow layers, 33..64 rows: us", ""]
    rows = []
    for n, k in ((1024, 4096), (2048, 2048), (512, 2048), (2048, 512), (1024, 1024), (512, 512)):
        for m in (33, 40, 48, 64):
            ls, x, ref = layers(m, n, k)
            rule, old = H.select_variant(m, n, k, 4), table_choice(m, n, k)
            w = lambda v: lambda L: lambda: ext.wo_gemm(x, L.qweight, L.scales, L.zeros, L.bias, 4, 128, n, 0, v)  # noqa: E731
            t_rule = timed(w(rule), ls, ref, f"rule v{rule}")
            t_old = timed(w(old), ls, ref, f"table v{old}")
            t_mixed = timed(lambda L: lambda: weight_only_mm(x, L.qweight_mixed, L.scales_mixed, None, L.bias, None,
                                                             layout=LAYOUT_MIXED, bits=4, group_size=128, n=n), ls, ref, "mixed")
            rows.append([f"{m}x{n}x{k}", f"v{rule}", f"{t_rule:.2f}", f"v{old}", f"{t_old:.2f}", f"{t_mixed:.2f}",
                         round(t_old / t_rule, 3)])
            print(rows[-1], flush=True)
    lines += md_table(["MxNxK", "rule", "us", "table", "us", "mixed us", "table/rule"], rows)
    lines += ["", "(b) forced split-K (0: the plan's own), us", ""]
    rows = []
    for m, n, k in ((49, 512, 2048), (196, 512, 1024), (3136, 256, 64), (3136, 128, 256), (49, 2048, 512)):
        ls, x, ref = layers(m, n, k, 128 if k % 128 == 0 else 64)
        blk = 128 if k % 128 == 0 else 64
        for v in (1, 28, 2, 3):
            cells = []
            for s in (0, 2, 4, 8, 16):
                fn = lambda L: lambda: ext.wo_gemm(x, L.qweight, L.scales, L.zeros, L.bias, 4, blk, n, s, v)  # noqa: E731
                cells.append(f"{timed(fn, ls, ref, f'v{v} s{s}'):.2f}")
            rows.append([f"{m}x{n}x{k}", f"v{v}", *cells, ext.wo_plan_info(m, n, k, 4, False, False, v)[2]])
            print(rows[-1], flush=True)
    lines += md_table(["MxNxK", "variant", "plan", "2", "4", "8", "16", "plan splits"], rows)
    (out / "check.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
