#!/usr/bin/env python3
"""Session 49 probe (call 2): why the fp8 blockwise 128 x 128 tile takes longer at 132 and 192 rows than at 256 (call 1,
sfa_rows.py: 8192^2 49.5 / 42.5 / 35.6 us with row-major scales, the same 2 x 64 tiles at 132 and 256 rows). Each
kernel launched directly at a fixed tile (no selection, no quantizer; operands from torch), 20 calls per CUDA graph
(bench_common.graph_time_us), two rounds, median: the fp8 128 x 128 c1x1 and 64 x 128 pingpong tiles and the int8
128 x 128 c2x1 and pingpong tiles, each with row-major ("k") and column-major ("mn") scale_a, and this library's
per-token fp8 GEMM (`scaled_mm`, its own tile choice), at 128..384 rows; the per-group quantizer alone at 132 and 256
rows. Outputs of the two scale layouts of a tile compared bitwise.

    python tile_rows.py names
    python tile_rows.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import blockwise as bk  # noqa: E402
from cutlass_gemm.kernels import heuristics  # noqa: E402

SHAPES = [(8192, 8192), (4096, 4096), (28672, 4096)]  # (N, K)
ROWS = [128, 132, 144, 160, 192, 224, 256, 260, 320, 384]
TILES = {"f128": ("e4m3", bk.SELECTION[1][1]), "fpp": ("e4m3", bk.SELECTION[0][1]),
         "s128": ("s8", bk.SELECTION_S8[1][1]), "spp": ("s8", bk.SELECTION_S8[0][1])}


def cfg(tile, major):
    ab, row = TILES[tile]
    return bk._row_config(row, ab, "bf16", "none", major)


def per_token(m, n):
    return heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, m, n, "e4m3"), a_dtype="e4m3")


def names():
    out = {cfg(t, maj).name for t in TILES for maj in ("k", "mn")}
    out |= {per_token(m, n).name for m in ROWS for n, _ in SHAPES}
    return sorted(out)


def main(out_path):
    import torch
    import cutlass_gemm
    from bench_common import graph_time_us
    from cutlass_gemm.runtime import loader
    from cutlass_gemm.quant import quantize_weight
    fp8 = torch.float8_e4m3fn

    def launcher(c, a, b, ldb, sa, sb, m, n, k):
        lib = loader.get_kernel(c)
        ws_bytes = lib.workspace_size(m, n, k)

        def fn():
            out = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
            ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device="cuda")
            lib.launch(a.data_ptr(), b.data_ptr(), out.data_ptr(), sa.data_ptr(), sb.data_ptr(), None, m, n, k, k, ldb,
                       n, ws.data_ptr(), ws_bytes, torch.cuda.current_stream().cuda_stream)
            return out
        return fn

    rows = []
    for n, k in SHAPES:
        for m in ROWS:
            g = torch.Generator(device="cuda").manual_seed(m + n + k)
            x = torch.randn(m, k, device="cuda", generator=g)
            w = torch.randn(n, k, device="cuda", generator=g)
            ops = {}
            qf, sf = cutlass_gemm.quantize_per_group(x.bfloat16(), 128, fp8)
            wf = w.to(fp8)
            sbf = torch.rand(-(-n // 128), k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
            qs, ss = cutlass_gemm.quantize_per_group(x.bfloat16(), 128, torch.int8)
            ws8 = torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g)
            sbs = torch.rand(n, k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
            for t in TILES:
                for maj in ("k", "mn"):
                    if t[0] == "f":
                        sa = sf if maj == "k" else sf.t().contiguous().t()
                        ops[f"{t}_{maj}"] = launcher(cfg(t, maj), qf, wf, k, sa, sbf, m, n, k)
                    else:
                        sa = ss if maj == "k" else ss.t().contiguous().t()
                        ops[f"{t}_{maj}"] = launcher(cfg(t, maj), qs, ws8, k, sa, sbs, m, n, k)
            qt, st = cutlass_gemm.quantize_per_token(x.bfloat16(), fp8)
            wt = quantize_weight(w, dtype=fp8)
            ops["per_token"] = lambda: cutlass_gemm.scaled_mm(qt, wt.b, st, wt.scale_b, torch.bfloat16)  # noqa: B023
            if m in (132, 256):
                xb = x.bfloat16()
                ops["quant_k"] = lambda: cutlass_gemm.quantize_per_group(xb, 128, fp8)  # noqa: B023
                ops["quant_mn"] = lambda: cutlass_gemm.quantize_per_group(xb, 128, fp8,  # noqa: B023
                                                                         column_major_scale=True)
            equal = {t: bool(torch.equal(ops[f"{t}_k"](), ops[f"{t}_mn"]())) for t in TILES}
            times = {name: [] for name in ops}
            for _ in range(2):
                for name, fn in ops.items():
                    times[name].append(graph_time_us(fn))
            med = {name: statistics.median(v) for name, v in times.items()}
            rows.append(dict(m=m, n=n, k=k, us=med, runs=times, bits_equal=equal,
                             per_token_kernel=per_token(m, n).name))
            print(f"{m}x{n}x{k}: " + " ".join(f"{name} {v:.1f}" for name, v in med.items()) + f" | equal {equal}",
                  flush=True)
    Path(out_path).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
