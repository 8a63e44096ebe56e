#!/usr/bin/env python3
"""Session 49 probe (call 5): the eager `Fp8BlockLinear` (one C++ call: per-group quantization + the CUTLASS blockwise
GEMM) under the old layer rule (column-major activation scales from 512 rows) and the new one (from 256 rows,
kernels/blockwise.py SFA_MN_MIN_M_LAYER), each captured 20 calls at a time into a CUDA graph (bench_common.
graph_time_us; the rule is read when the call is made, so it is held through capture), the two timed in turn three
times, median per rule; outputs compared bitwise. bf16 weights and input, bias.

    python fp8_layer_rule.py names
    python fp8_layer_rule.py run OUT.json
"""
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT))
from cutlass_gemm.kernels import blockwise as bk  # noqa: E402

SHAPES = [(4096, 4096), (7168, 2048), (8192, 8192), (28672, 4096)]  # (out_features N, in_features K)
ROWS = [256, 320, 384, 448, 500]
OLD, NEW = 512, bk.SFA_MN_MIN_M_LAYER


def names():
    return sorted({bk.select_config("bf16", m, "none", major, "e4m3", n).name for n, _ in SHAPES for m in ROWS
                   for major in ("k", "mn")})


def main(out_path):
    import torch
    from bench_common import graph_time_us
    from cutlass_gemm.nn import Fp8BlockLinear
    rows = []
    for n, k in SHAPES:
        torch.manual_seed(n + k)
        layer = Fp8BlockLinear.from_float(torch.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16))
        for m in ROWS:
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)

            def under(limit):
                bk.SFA_MN_MIN_M_LAYER = limit
                try:
                    return layer(x)
                finally:
                    bk.SFA_MN_MIN_M_LAYER = NEW
            equal = bool(torch.equal(under(OLD), under(NEW)))
            t = {"old": [], "new": []}
            for _ in range(3):
                for name, limit in (("old", OLD), ("new", NEW)):
                    bk.SFA_MN_MIN_M_LAYER = limit  # held through capture
                    try:
                        t[name].append(graph_time_us(lambda: layer(x)))  # noqa: B023
                    finally:
                        bk.SFA_MN_MIN_M_LAYER = NEW
            old, new = statistics.median(t["old"]), statistics.median(t["new"])
            rows.append(dict(m=m, n=n, k=k, old_us=old, new_us=new, runs=t, bits_equal=equal))
            print(f"{m}x{n}x{k}: layer in a graph {old:.1f} -> {new:.1f} us ({old / new:.3f}x), bits equal {equal}",
                  flush=True)
    Path(out_path).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    if sys.argv[1] == "names":
        print("\n".join(names()))
    else:
        main(sys.argv[2])
