#!/usr/bin/env python3
"""Session 49 probe: the activation-scale layout ("k": row-major (M, K/128), "mn": its column-major transpose) that a
per-block layer should ask the per-group quantizer for, at the rows where the layers ask "k" today (int8 below
SFA_MN_MIN_M_S8 = 129, fp8 below SFA_MN_MIN_M = 512) and a few above. Both arms are what a layer runs: the quantizer
(`quantize_per_group`, writing the arm's layout) then the blockwise GEMM launched with that layout (ops/blockwise.py
`launch`: the kernel select_config picks for (M, N), no relayout copy), captured 20 calls at a time into a CUDA graph
(bench_common.graph_time_us), the two arms timed in turn three times, median per arm. Outputs compared bitwise (same
tile, same arithmetic per element and K block), with the public op's too.

    python sfa_rows.py names          # the kernels to build
    python sfa_rows.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import blockwise as bk  # noqa: E402

SHAPES = [(4096, 4096), (7168, 2048), (8192, 8192), (14336, 4096), (28672, 4096)]  # (N, K)
ROWS = {"s8": [20, 32, 48, 64, 96, 128, 132, 192, 256, 384], "e4m3": [20, 32, 64, 128, 132, 192, 256, 384, 512]}


def cases():
    return [(ab, m, n, k) for ab in ("s8", "e4m3") for n, k in SHAPES for m in ROWS[ab]]


def names():
    return sorted({bk.select_config("bf16", m, "none", major, ab, n).name for ab, m, n, _ in cases()
                   for major in ("k", "mn")})


def main(out_path):
    import torch
    import cutlass_gemm
    from bench_common import graph_time_us
    from cutlass_gemm.ops import blockwise as bop
    rows = []
    for ab, m, n, k in cases():
        g = torch.Generator(device="cuda").manual_seed(m + n + k)
        x = torch.randn(m, k, device="cuda", generator=g).bfloat16()
        if ab == "s8":
            qd = torch.int8
            w = torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g)
            b, ldb = w, k
            sb = torch.rand(n, k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
        else:
            qd = torch.float8_e4m3fn
            w = (torch.randn(n, k, device="cuda", generator=g) * 0.5).to(qd)
            b, ldb = w.t(), k
            sb = torch.rand(-(-n // 128), k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
        kernel = bk.select_config("bf16", m, "none", "k", ab, n).name

        def arm(major):
            def fn():
                q, sa = cutlass_gemm.quantize_per_group(x, 128, qd, column_major_scale=major == "mn")
                return bop.launch(q, ldb, b, sa, sb, None, torch.bfloat16, "none", m, n, k, major, ab)
            return fn
        y_k = arm("k")()
        q, sa = cutlass_gemm.quantize_per_group(x, 128, qd)  # the public op on the same values (validates the call)
        pub = (cutlass_gemm.scaled_mm_blockwise_int8(q, w, sa, sb) if ab == "s8"
               else cutlass_gemm.scaled_mm_blockwise(q, b, sa, sb))
        equal = bool(torch.equal(y_k, arm("mn")())) and bool(torch.equal(y_k, pub))
        t = {"k": [], "mn": []}
        for _ in range(3):
            for major in ("k", "mn"):
                t[major].append(graph_time_us(arm(major)))
        k_us, mn_us = statistics.median(t["k"]), statistics.median(t["mn"])
        rows.append(dict(ab=ab, m=m, n=n, k=k, kernel=kernel, k_us=k_us, mn_us=mn_us, runs=t, bits_equal=equal))
        print(f"{ab} {m}x{n}x{k} {kernel}: k {k_us:.2f} mn {mn_us:.2f} us (k/mn {k_us / mn_us:.3f}), bits equal "
              f"{equal}", flush=True)
    Path(out_path).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
