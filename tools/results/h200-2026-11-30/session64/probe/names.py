#!/usr/bin/env python3
"""The kernels pad_out.py's points need (ROWS x SHAPES, int8 and e4m3 `scaled_mm` per-token x per-channel, bf16, at M
and at padded_rows' rows), recorded by ops.select_kernel without building (session 62's pad_ops._recorded_kernels).

    python names.py ROWS SHAPES > kernels.txt
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "session62" / "probe"))
import pad_ops as P  # noqa: E402


def names(rows, shapes):
    calls = []
    for n, k in shapes:
        for m in rows:
            for ab in P.ABS:
                calls += [("scaled", ab, "bf16", "token", "channel", r, n, k)
                          for r in (m, P.H.padded_rows(90, m, n, ab, "scaled", "none", k))]
    return sorted(P._recorded_kernels(calls))


if __name__ == "__main__":
    print("\n".join(names([int(r) for r in sys.argv[1].split(",")],
                          [tuple(int(v) for v in s.split("x")) for s in sys.argv[2].split(",")])))
