"""Session 41 probe, call 3: linear shapes whose routed variant (wo_heuristics.select_variant) is an mma kernel with a
split-K plan. Per shape and bits: the plan as the library launches it (its split count; clusters up to 2 splits, the
default), forced 2 splits through a cluster, forced 2 through the workspace, and the plan's count through clusters
of up to 4 / 8 splits without (policy 1) and with (policy 2, the default) the launcher's CTA spread. fp16 x, int4 g128 /
int8 per channel, GPU time of a CUDA graph over weight copies past L2 (bench_common.graph_time_us), every output checked
against float64 and against the plan's bits. Writes split2.md."""
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[5]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]
from bench_common import graph_time_us, md_table, stamp  # noqa: E402

from cutlass_gemm.ops import wo_heuristics as H  # noqa: E402
from cutlass_gemm.quant import prepack, quantize_weight_only, unpack  # noqa: E402
from cutlass_gemm.runtime import extension  # noqa: E402

SHAPES = [(24, 4096, 4096), (32, 8192, 8192), (32, 4096, 14336), (48, 4096, 4096), (48, 6144, 4096), (64, 8192, 8192),
          (33, 1024, 4096), (128, 1024, 4096), (40, 2048, 2048), (196, 512, 1024), (784, 256, 512)]


def main(out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    ext = extension.load()
    rows = []
    for m, n, k in SHAPES:
        for bits, group in ((4, 128), (8, None)):
            v = H.select_variant(m, n, k, bits)
            if not H.VARIANTS.get(v, ("mma",))[0].startswith("mma"):
                continue
            plan = ext.wo_plan_info(m, n, k, bits, False, False, v)
            copies = max(4, min(64, -(-(120 << 20) // (n * k * bits // 8))))
            g = torch.Generator().manual_seed(m + n + k + bits)
            p0 = prepack(quantize_weight_only(torch.randn(n, k, generator=g), bits, group, zero_point=False,
                                              scale_dtype=torch.float16), device="cuda")
            ps = [(p0.qweight.clone(), p0.scales.clone()) for _ in range(copies)]
            x = torch.randn(m, k, device="cuda").half()
            ref = x.double() @ unpack(p0).dequantize(torch.float64).t()
            it = iter(range(10 ** 9))
            cells, y0 = [], None
            for label, s, most, pdl in (("plan", 0, 2, 2), ("2 cl", 2, 2, 2), ("2 ws", 2, 0, 2), ("plan cl4", 0, 4, 2),
                                        ("plan cl8", 0, 8, 2), ("plan cl8 nospread", 0, 8, 1)):
                ext.wo_set_cluster_reduce(most)
                ext.wo_set_pdl_policy(pdl)
                args = lambda q: (x, q[0], q[1], None, None, bits, group or 0, n, s, v)  # noqa: E731
                y = ext.wo_gemm(*args(ps[0]))
                err = float((y.double() - ref).norm() / ref.norm())
                assert err < 2e-2, (m, n, k, bits, label, err)
                if y0 is None:
                    y0 = y
                same = "" if s == 0 and torch.equal(y, y0) or s else "*"
                cells.append(f"{graph_time_us(lambda: ext.wo_gemm(*args(ps[next(it) % copies])), calls=copies):.2f}{same}")
            ext.wo_set_cluster_reduce(2)
            ext.wo_set_pdl_policy(2)
            rows.append([f"{m}x{n}x{k}", bits, f"v{v}", plan[2], *cells])
            print(rows[-1], flush=True)
    lines = [str(stamp()), "", "us per call; plan: the library's launch (cluster only at <= 2 splits); '2 cl' / '2 ws': "
             "forced 2 splits through a cluster / the workspace; 'plan clN': the plan's splits through clusters of up "
             "to N; 'nospread': PDL without the CTA spread (pdl policy 1); * = not the plan's bits", ""]
    lines += md_table(["MxNxK", "bits", "variant", "plan splits", "plan", "2 cl", "2 ws", "plan cl4", "plan cl8",
                       "plan cl8 nospread"], rows)
    (out / "split2.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
