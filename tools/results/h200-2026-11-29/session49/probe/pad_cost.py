#!/usr/bin/env python3
"""Session 49 probe (call 4): what padding the activation to whole M tiles would gain this library's per-token GEMMs
(`scaled_mm`, fp8 and int8, bf16 out) where the caller's activation is not padded: the op at M rows ("plain") against
(a) the same call on operands already padded with zero rows to the tile's M of M's kernel, output rows beyond M
dropped ("prepadded": what a quantizer that allocates whole tiles would give), and (b) copying the activation and its
scales into such a padded buffer first, in the same graph ("copy"). M from 132 to 4100 rows, mostly just past a tile
boundary; 20 calls per CUDA graph (bench_common.graph_time_us), two rounds, median. Operands from torch, no extension
(CUTLASS_GEMM_FAST_PATH=0).

    python pad_cost.py names
    python pad_cost.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import heuristics  # noqa: E402

SHAPES = [(8192, 8192), (28672, 4096), (4096, 4096), (7168, 2048)]  # (N, K)
ROWS = [132, 200, 260, 400, 520, 1030, 2060, 4100]


def tile_m(m, n, ab):
    return heuristics.choose_tile(90, m, n, ab).tile[0]


def padded_m(m, n, ab):
    tm = tile_m(m, n, ab)
    return -(-m // tm) * tm


def kernel(m, n, ab):
    return heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, m, n, ab), a_dtype=ab).name


def names():
    return sorted({kernel(mm, n, ab) for m in ROWS for n, _ in SHAPES for ab in ("e4m3", "int8")
                   for mm in (m, padded_m(m, n, ab))})


def main(out_path):
    import torch
    import cutlass_gemm
    from bench_common import graph_time_us
    from cutlass_gemm.quant import quantize_weight
    fp8 = torch.float8_e4m3fn
    out = []
    for n, k in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(n + k)
        wf = torch.randn(n, k, device="cuda", generator=g)
        weights = {"e4m3": quantize_weight(wf, dtype=fp8), "int8": quantize_weight(wf, dtype=torch.int8)}
        for m in ROWS:
            x = torch.randn(m, k, device="cuda", generator=g)
            st = torch.rand(m, 1, device="cuda", generator=g) * 1e-2 + 1e-3
            res = {}
            for ab, wt in weights.items():
                a = x.to(fp8) if ab == "e4m3" else torch.randint(-127, 128, (m, k), device="cuda", dtype=torch.int8,
                                                                 generator=g)
                mp = padded_m(m, n, ab)
                ap = torch.zeros(mp, k, device="cuda", dtype=a.dtype)
                ap[:m] = a
                sp = torch.ones(mp, 1, device="cuda")
                sp[:m] = st

                def plain(a=a, wt=wt):
                    return cutlass_gemm.scaled_mm(a, wt.b, st, wt.scale_b, torch.bfloat16)

                def prepadded(ap=ap, sp=sp, wt=wt, m=m):
                    return cutlass_gemm.scaled_mm(ap, wt.b, sp, wt.scale_b, torch.bfloat16)[:m]

                def copy(a=a, wt=wt, m=m, mp=mp):
                    buf = torch.empty(mp, k, device="cuda", dtype=a.dtype)
                    buf[:m].copy_(a)
                    buf[m:].zero_()
                    sbuf = torch.empty(mp, 1, device="cuda")
                    sbuf[:m].copy_(st)
                    sbuf[m:].fill_(1.0)
                    return cutlass_gemm.scaled_mm(buf, wt.b, sbuf, wt.scale_b, torch.bfloat16)[:m]
                arms = {"plain": plain, "prepadded": prepadded, "copy": copy}
                equal = bool(torch.equal(plain(), prepadded())) and bool(torch.equal(plain(), copy()))
                times = {name: [] for name in arms}
                for _ in range(2):
                    for name, fn in arms.items():
                        times[name].append(graph_time_us(fn))
                med = {name: statistics.median(v) for name, v in times.items()}
                res[ab] = dict(us=med, runs=times, bits_equal=equal, m_pad=mp, kernel=kernel(m, n, ab),
                               kernel_pad=kernel(mp, n, ab))
            out.append(dict(m=m, n=n, k=k, **res))
            print(f"{m}x{n}x{k}: " + " ".join(
                f"{ab}(->{r['m_pad']}{'' if r['kernel'] == r['kernel_pad'] else ' other tile'}) plain {r['us']['plain']:.1f}"
                f" prepadded {r['us']['prepadded']:.1f} copy {r['us']['copy']:.1f} eq {r['bits_equal']}"
                for ab, r in res.items()), flush=True)
    Path(out_path).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
