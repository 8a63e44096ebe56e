"""Session 24 probe: the per-block layers' eager call above decode sizes, C++ fast path (ops/block_linear.py) on vs
off (the layer's Python path: `block_linear._ext = False`), in one process, beside bf16 F.linear and an nn.Linear
module. Device time = bench_common.gpu_time_us (calls queued behind a GPU sleep: a host-bound call shows its host
time), eager wall = wall_time_us (back-to-back calls, synchronized). Writes a Markdown table to stdout."""
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[5] / "tools"))
from bench_common import gpu_time_us, wall_time_us  # noqa: E402

from cutlass_gemm.nn import Fp8BlockLinear, Int8BlockLinear  # noqa: E402
from cutlass_gemm.ops import block_linear  # noqa: E402

SHAPES = [(64, 7168, 2048), (256, 7168, 2048), (1024, 7168, 2048), (4096, 7168, 2048), (2048, 8192, 8192)]


def main():
    print("| M x N x K | layer | fast path | device us | eager wall us |")
    print("|---|---|---|---|---|")
    for m, n, k in SHAPES:
        torch.manual_seed(0)
        lin = torch.nn.Linear(k, n).cuda().bfloat16()
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        rows = [("bf16 F.linear", "-", lambda: F.linear(x, lin.weight, lin.bias)), ("nn.Linear", "-", lambda: lin(x))]
        for name, layer in (("Fp8BlockLinear", Fp8BlockLinear.from_float(lin)),
                            ("Int8BlockLinear B128", Int8BlockLinear.from_float(lin, block_size=128))):
            y_fast = layer(x)
            saved = block_linear._ext
            block_linear._ext = False
            y_py = layer(x)
            rows.append((name, "off", lambda layer=layer: layer(x)))
            off = [(gpu_time_us(rows[-1][2]), wall_time_us(rows[-1][2]))]
            block_linear._ext = saved
            same = torch.equal(y_fast, y_py)
            rows[-1] = (name, f"off (fast == python: {same})", rows[-1][2], off[0])
            rows.append((name, "on", lambda layer=layer: layer(x)))
        for row in rows:
            label, fp, fn = row[:3]
            dev, wall = row[3] if len(row) > 3 else (gpu_time_us(fn), wall_time_us(fn))
            print(f"| {m} x {n} x {k} | {label} | {fp} | {dev:.1f} | {wall:.1f} |")


if __name__ == "__main__":
    main()
