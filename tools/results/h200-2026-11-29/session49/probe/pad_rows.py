#!/usr/bin/env python3
"""Session 49 probe (call 3): is the time the 128-row-tile kernels lose at 129..255 rows (call 2, tile_rows.py: fp8
128 x 128 "k" 8192^2 45.0 us at 132 rows, 32.4 at 256 with the same 2 x 64 tiles; this library's per-token fp8 GEMM
47.4 / 31.0) the partial m-tile's out-of-bounds rows? Each kernel at M rows against the same kernel at M_pad rows (M
rounded up to the tile's M) on operands padded with zero rows, the output's first M rows kept: the blockwise fp8
128 x 128 and 64 x 128 pingpong tiles and the int8 128 x 128 c2x1 tile ("mn" scale_a, launched directly), and this
library's per-token fp8 and int8 GEMMs (`scaled_mm`, padded to its chosen tile's M, `per_token_kernels` says whether
the padded M chose the same kernel). 20 calls per CUDA graph (bench_common.graph_time_us), two rounds, median. Operands from torch (no
quantizer, no extension: CUTLASS_GEMM_FAST_PATH=0).

    python pad_rows.py names
    python pad_rows.py run OUT.json
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

SHAPES = [(8192, 8192), (28672, 4096), (4096, 4096)]  # (N, K)
ROWS = [132, 160, 192, 224, 256, 260, 320, 384, 400, 500]
TILES = {"f128": ("e4m3", bk.SELECTION[1][1]), "fpp": ("e4m3", bk.SELECTION[0][1]),
         "s128": ("s8", bk.SELECTION_S8[1][1])}


def cfg(tile):
    ab, row = TILES[tile]
    return bk._row_config(row, ab, "bf16", "none", "mn")


def pad(m, tm):
    return -(-m // tm) * tm


def per_token(m, n, ab):
    return heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, m, n, ab), a_dtype=ab)


def names():
    out = {cfg(t).name for t in TILES}
    out |= {per_token(mm, n, ab).name for m in ROWS for n, _ in SHAPES for ab in ("e4m3", "int8")
            for mm in (m, pad(m, heuristics.choose_tile(90, m, n, ab).tile[0]))}
    return sorted(out)


def main(out_path):
    import torch
    import cutlass_gemm
    from bench_common import graph_time_us
    from cutlass_gemm.quant import quantize_weight
    from cutlass_gemm.runtime import loader
    fp8 = torch.float8_e4m3fn

    def launcher(c, a, b, sa, sb, m, n, k):
        lib = loader.get_kernel(c)
        ws_bytes = lib.workspace_size(m, n, k)

        def fn():
            out = torch.empty(m, n, dtype=torch.bfloat16, device="cuda")
            ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device="cuda")
            lib.launch(a.data_ptr(), b.data_ptr(), out.data_ptr(), sa.data_ptr(), sb.data_ptr(), None, m, n, k, k, k,
                       n, ws.data_ptr(), ws_bytes, torch.cuda.current_stream().cuda_stream)
            return out
        return fn

    def padded(t, rows, fill=0):
        p = torch.full((rows,) + tuple(t.shape[1:]), fill, dtype=torch.float32, device="cuda").to(t.dtype)
        p[:t.shape[0]] = t
        return p

    def col(sa, rows):  # column-major (rows, K/128) scale_a, rows beyond sa's set to 1
        p = torch.ones(sa.shape[1], rows, device="cuda")
        p[:, :sa.shape[0]] = sa.t()
        return p.t()

    rows_out = []
    for n, k in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(n + k)
        wf = torch.randn(n, k, device="cuda", generator=g)
        w8 = wf.to(fp8)
        ws8 = torch.randint(-127, 128, (n, k), device="cuda", dtype=torch.int8, generator=g)
        sbf = torch.rand(-(-n // 128), k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
        sbs = torch.rand(n, k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
        wt8, wti = quantize_weight(wf, dtype=fp8), quantize_weight(wf, dtype=torch.int8)
        for m in ROWS:
            x = torch.randn(m, k, device="cuda", generator=g)
            xf = x.to(fp8)
            xi = torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8, generator=g)
            sa = torch.rand(m, k // 128, device="cuda", generator=g) * 1e-2 + 1e-3
            st = torch.rand(m, 1, device="cuda", generator=g) * 1e-2 + 1e-3
            ops, pairs = {}, []
            for t in TILES:
                tm = TILES[t][1][0][0]  # the tile's M
                mp = pad(m, tm)
                a = xf if t[0] == "f" else xi
                b, sb = (w8, sbf) if t[0] == "f" else (ws8, sbs)
                ops[t] = launcher(cfg(t), a, b, col(sa, m), sb, m, n, k)
                ops[t + "_pad"] = launcher(cfg(t), padded(a, mp), b, col(sa, mp), sb, mp, n, k)
                pairs.append(t)
            for name, a, wt, ab in (("tok_fp8", xf, wt8, "e4m3"), ("tok_int8", xi, wti, "int8")):
                mp = pad(m, heuristics.choose_tile(90, m, n, ab).tile[0])  # to the M tile's multiple: same kernel
                ap, sp = padded(a, mp), padded(st, mp, 1)
                ops[name] = (lambda a=a, wt=wt: cutlass_gemm.scaled_mm(a, wt.b, st, wt.scale_b, torch.bfloat16))
                ops[name + "_pad"] = (lambda ap=ap, sp=sp, wt=wt:
                                      cutlass_gemm.scaled_mm(ap, wt.b, sp, wt.scale_b, torch.bfloat16)[:m])  # noqa: B023
                pairs.append(name)
            equal = {p: bool(torch.equal(ops[p]()[:m], ops[p + "_pad"]()[:m])) for p in pairs}
            times = {name: [] for name in ops}
            for _ in range(2):
                for name, fn in ops.items():
                    times[name].append(graph_time_us(fn))
            med = {name: statistics.median(v) for name, v in times.items()}
            kernels = {f"tok_{ab}": [per_token(mm, n, ab).name
                                     for mm in (m, pad(m, heuristics.choose_tile(90, m, n, ab).tile[0]))]
                       for ab in ("e4m3", "int8")}
            rows_out.append(dict(m=m, n=n, k=k, us=med, runs=times, bits_equal=equal, per_token_kernels=kernels))
            print(f"{m}x{n}x{k}: " + " ".join(f"{p} {med[p]:.1f}/{med[p + '_pad']:.1f}" for p in pairs)
                  + f" | equal {equal}", flush=True)
    Path(out_path).write_text(json.dumps(rows_out, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
