#!/usr/bin/env python3
"""The kernels session 63's calls build ahead (recorded by ops.select_kernel without building): pad_pdl.py's points
(ROWS x SHAPES), tests/test_rowpad_gpu.py (its SHAPES and the early-launch chain), the test_ops_gpu.py tests call 1
runs, and test_streamk_gpu.py's record in tools/suite_kernels_by_file.json.

    python names.py ROWS SHAPES
"""
import json
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
    from test_rowpad_gpu import SHAPES as TEST_SHAPES
    for m, n, k in TEST_SHAPES + [(256, 8200, 2064), (140, 4112, 4112)]:
        for ab in P.ABS:
            for variant in ("scaled", "scaled_bias", "scaled_azp", "scaled_azp_per_token"):
                if ab == "e4m3" and variant.startswith("scaled_azp"):
                    continue
                for sa in ("token", "tensor"):
                    calls += [(variant, ab, "bf16", sa, "channel", r, n, k)
                              for r in (m, P.H.padded_rows(90, m, n, ab, variant, "none", k))]
    calls += [("scaled_bias", "int8", "bf16", "token", "channel", 40, 128, 256),  # test_ops_gpu opcheck
              ("scaled_azp_per_token", "int8", "bf16", "token", "channel", 40, 128, 256),
              ("scaled_bias", "int8", "bf16", "token", "channel", 64, 256, 512),  # torch.compile
              ("scaled_azp_per_token", "int8", "f16", "token", "channel", 16, 512, 1024)]  # CUDA graph
    out = P._recorded_kernels(calls)
    for n, k in shapes:
        for m in rows:
            for r in (m, P.B.padded_rows(m, "e4m3", n)):
                for major in ("k", "mn"):
                    out.add(P.B.select_config("bf16", r, "none", major, "e4m3", n).name)
    for m, n, k in ((132, 16392, 1152), (260, 7168, 4096), (520, 4104, 4096), (600, 136, 4096), (602, 136, 4096)):
        for r in (m, P.B.padded_rows(m, "e4m3", n)):
            for major in ("k", "mn"):
                out.add(P.B.select_config("bf16", r, "none", major, "e4m3", n).name)
    record = json.loads((P.ROOT / "tools" / "suite_kernels_by_file.json").read_text())["files"]
    out.update(record["test_streamk_gpu.py"])
    return sorted(out)


if __name__ == "__main__":
    print("\n".join(names([int(r) for r in sys.argv[1].split(",")],
                          [tuple(int(v) for v in s.split("x")) for s in sys.argv[2].split(",")])))
