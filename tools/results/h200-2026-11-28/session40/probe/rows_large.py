"""Session 40 probe, call 5: the row blocks at many rows on narrow layers (batch 8 / 32 1x1 conv pixel rows, narrow
linear layers at 1024..4096 rows): the row-block rule's variant against the mixed-input kernel and fp16 cuBLAS
(F.linear on the dense weight), whether or not the shape is inside wo_heuristics.row_block_limit today. fp16, int4
g128 (g64 at K = 64), GPU time of a CUDA graph over weight copies; outputs checked against float64. Writes large.md."""
import sys
from pathlib import Path

import torch
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rows_check import H, ROOT, extension, graph_time_us, md_table, stamp, timed, weight_only_mm, LAYOUT_MIXED  # noqa: E402,F401
import cutlass_gemm.nn as cnn  # noqa: E402
from cutlass_gemm.quant import unpack  # noqa: E402

SHAPES = [(25088, 64, 64), (100352, 64, 64), (25088, 256, 64), (25088, 64, 256), (6272, 512, 128), (25088, 512, 128),
          (6272, 128, 512), (1568, 1024, 256), (6272, 1024, 256), (1568, 256, 1024), (6272, 256, 1024), (392, 2048, 512),
          (1568, 512, 2048), (4096, 256, 1024), (1024, 512, 512), (2048, 512, 1024), (512, 1024, 1024)]


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ext = extension.load()
    rows = []
    for m, n, k in SHAPES:
        block = 128 if k % 128 == 0 else 64
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        copies = max(8, min(32, -(-(120 << 20) // (n * k * 2))))
        lins = [nn.Linear(k, n, device="cuda", dtype=torch.float16) for _ in range(copies)]
        with torch.no_grad():
            for lin in lins:
                lin.weight.copy_(torch.randn(n, k, device="cuda", generator=g) * k ** -0.5)
        ls = [cnn.WeightOnlyLinear.from_float(lin, bits=4, group_size=block, large_m_backend="cutlass_mixed") for lin in lins]
        x = torch.randn(m, k, device="cuda", generator=g).half()
        ref = x.double() @ unpack(ls[0].packed).dequantize(torch.float64).t() + ls[0].bias.double()
        v = H.row_block_variant(m, n, k)
        it = iter(range(10 ** 9))
        with torch.no_grad():
            t16 = graph_time_us(lambda: lins[next(it) % copies](x), calls=copies)
        t_rows = timed(lambda L: lambda: ext.wo_gemm(x, L.qweight, L.scales, L.zeros, L.bias, 4, block, n, 0, v), ls, ref, f"v{v}")
        t_mixed = timed(lambda L: lambda: weight_only_mm(x, L.qweight_mixed, L.scales_mixed, None, L.bias, None,
                                                         layout=LAYOUT_MIXED, bits=4, group_size=block, n=n), ls, ref, "mixed")
        inside = m <= H.row_block_limit(n, k)
        rows.append([f"{m}x{n}x{k}", "yes" if inside else "no", f"v{v}", f"{t_rows:.2f}", f"{t_mixed:.2f}", f"{t16:.2f}",
                     round(t_mixed / t_rows, 3), round(t16 / t_rows, 3)])
        print(rows[-1], flush=True)
        del ls, lins, x, ref
        torch.cuda.empty_cache()
    lines = [str(stamp()), "", "us; inside = M <= row_block_limit(N, K) at this commit", ""]
    lines += md_table(["MxNxK", "inside", "rule", "rows us", "mixed us", "fp16 cuBLAS us", "mixed/rows", "fp16/rows"], rows)
    (out / "large.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
