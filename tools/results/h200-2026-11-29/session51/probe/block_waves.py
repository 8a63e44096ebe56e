#!/usr/bin/env python3
"""Session 51 probe 4: does the blockwise fp8 layer (`Fp8BlockLinear`, padded, column-major activation scales) lose to
waves as the per-token layers did? Its SELECTION serves 129..1024 rows with the 128 x 128 cooperative tile
(overlapped promotion); here each call runs either that tile or the 256 x 128 c1x2 per-atom tile, forced (one-row
SELECTION, so padded_rows pads to the forced tile), at 384..1024 rows, with the per-token `Fp8Linear` (heuristics.WAVES)
beside it. CUDA graphs (bench_common.graph_time_us), two rounds in alternation, median; outputs of the two tiles compared.

    python block_waves.py names
    python block_waves.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import blockwise_heuristics as bh, heuristics  # noqa: E402

ROWS128 = ((128, 128, 128), (1, 1, 1), "cooperative", "persistent", "overlap")
ROWS256 = ((256, 128, 128), (1, 2, 1), "cooperative", "persistent", "atom")
SELECTION = bh.SELECTION
SHAPES = [(8192, 8192), (10240, 8192), (28672, 4096), (7168, 2048), (4096, 14336)]
ROWS = [384, 512, 768, 1024]


def force(arm):
    bh.SELECTION = ((None, ROWS128 if arm == "128" else ROWS256),) if arm else SELECTION


def names():
    out = {bh._row_config(r, "e4m3", "bf16", sfa_major="mn").name for r in (ROWS128, ROWS256)}
    for n, k in SHAPES:
        for m in ROWS:
            rows = heuristics.padded_rows(90, m, n, "e4m3", k=k)
            out.add(heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, rows, n, "e4m3", k),
                                           a_dtype="e4m3").name)
    return sorted(out)


def main(out_path):
    import torch
    from bench_common import graph_time_us
    from cutlass_gemm.nn import Fp8BlockLinear, Fp8Linear
    from cutlass_gemm.ops import blockwise as bops
    res = []
    for n, k in SHAPES:
        lin = torch.nn.Linear(k, n, bias=False, device="cuda", dtype=torch.bfloat16)
        blk, tok = Fp8BlockLinear.from_float(lin), Fp8Linear.from_float(lin)
        for m in ROWS:
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            times, outs = {"128": [], "256": []}, {}
            for rnd in range(2):
                for arm in ("128", "256") if rnd == 0 else ("256", "128"):
                    force(arm)
                    bops._plans.clear()
                    blk(x)
                    outs[arm] = blk(x)
                    times[arm].append(graph_time_us(lambda: blk(x)))
            force(None)
            bops._plans.clear()
            tok(x)
            t_tok = graph_time_us(lambda: tok(x))
            med = {a: statistics.median(v) for a, v in times.items()}
            d = float((outs["128"].float() - outs["256"].float()).norm() / outs["128"].float().norm())
            res.append(dict(m=m, n=n, k=k, us=med, runs=times, per_token_us=t_tok, rel_diff=d))
            print(f"{m}x{n}x{k} blockwise 128x128 {med['128']:.1f} 256x128 {med['256']:.1f} "
                  f"(256: {med['128'] / med['256']:.2f}x) per-token Fp8Linear {t_tok:.1f} "
                  f"(best blockwise / per-token speed {t_tok / min(med.values()):.2f}x) d {d:.1e}", flush=True)
        del blk, tok, lin
        torch.cuda.empty_cache()
    Path(out_path).write_text(json.dumps(dict(rows=res), indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
