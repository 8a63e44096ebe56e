#!/usr/bin/env python3
"""Session 50 probe: `Fp8BlockLinear` (blockwise fp8, activations 1 x 128, weights 128 x 128, no bias) quantizing into
whole M tiles (kernels/blockwise.py padded_rows, "pad") against the same layer unpadded (PAD_ROWS_E4M3 emptied, the
scale layout then the unpadded M's, "plain"), with this library's per-token `Fp8Linear` (padded, session 50's rule)
and bf16 F.linear beside them, in one process. GPU time per call from CUDA graphs of 20 eager layer calls
(bench_common.graph_time_us: the C++ call), two rounds, median; pad and plain compared bit for bit.

    python pad_block.py names          # blockwise kernels to build first (the per-token ones: pad_layer.py names)
    python pad_block.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import blockwise, heuristics  # noqa: E402

SHAPES = [(8192, 8192), (28672, 4096), (4096, 4096), (7168, 2048)]  # (N, K)
ROWS = [17, 32, 48, 100, 132, 160, 200, 260, 320, 400, 448, 520, 700, 1000]
PAD = blockwise.PAD_ROWS_E4M3


def names():
    out = set()
    for n, _ in SHAPES:
        for m in ROWS:
            for rows in (m, blockwise.padded_rows(m, "e4m3", n)):
                out.add(blockwise.select_config("bf16", rows, "none", blockwise.layer_sfa_major(rows), "e4m3", n).name)
            out.add(heuristics.make_config(90, "scaled", "bf16",
                                           heuristics.choose_tile(90, heuristics.padded_rows(90, m, n, "e4m3"), n,
                                                                  "e4m3"), a_dtype="e4m3").name)
    return sorted(out)


def main(out_path):
    import torch
    import torch.nn.functional as F
    from bench_common import graph_time_us
    from cutlass_gemm.nn import Fp8BlockLinear, Fp8Linear
    res = []
    for n, k in SHAPES:
        lin = torch.nn.Linear(k, n, bias=False, device="cuda", dtype=torch.bfloat16)
        blk, tok = Fp8BlockLinear.from_float(lin), Fp8Linear.from_float(lin)
        for m in ROWS:
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            outs, times = {}, {"pad": [], "plain": [], "per_token": [], "bf16": []}
            for arm in ("pad", "plain"):
                blockwise.PAD_ROWS_E4M3 = PAD if arm == "pad" else (1, 0)
                blk(x)
                outs[arm] = blk(x)
            tok(x)
            for _ in range(2):
                for arm in ("pad", "plain"):
                    blockwise.PAD_ROWS_E4M3 = PAD if arm == "pad" else (1, 0)
                    times[arm].append(graph_time_us(lambda: blk(x)))
                times["per_token"].append(graph_time_us(lambda: tok(x)))
                times["bf16"].append(graph_time_us(lambda: F.linear(x, lin.weight)))
            blockwise.PAD_ROWS_E4M3 = PAD
            med = {a: statistics.median(v) for a, v in times.items()}
            row = dict(m=m, n=n, k=k, rows=blockwise.padded_rows(m, "e4m3", n), us=med, runs=times,
                       bits_equal=bool(torch.equal(outs["pad"], outs["plain"])))
            res.append(row)
            print(f"{m}x{n}x{k} ->{row['rows']}: blockwise plain {med['plain']:.1f} pad {med['pad']:.1f} "
                  f"({med['plain'] / med['pad']:.2f}x) | per-token {med['per_token']:.1f} (blockwise padded "
                  f"{med['per_token'] / med['pad']:.2f}x of it) | bf16 {med['bf16']:.1f} ({med['bf16'] / med['pad']:.2f}x) "
                  f"eq {row['bits_equal']}", flush=True)
    Path(out_path).write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
