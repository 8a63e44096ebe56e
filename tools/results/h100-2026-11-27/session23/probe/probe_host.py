"""Session 23: host cost per eager call of the per-block layers' pieces, on a layer small enough (16 x 256 x 256)
that the GPU never holds the host back: per-call wall of 2000 back-to-back calls (one sync at the end), median of 5.
Usage: python probe_host.py OUT.md"""
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import cutlass_gemm
from cutlass_gemm.nn import Fp8BlockLinear, Int8BlockLinear, Int8Linear
from cutlass_gemm.ops import block_linear
from cutlass_gemm.runtime import extension


def host_us(fn, calls=2000, reps=5):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e6 / calls)
    return statistics.median(out)


def main(path):
    ext = extension.load()
    torch.manual_seed(0)
    m, n, k = 16, 256, 256
    lin = torch.nn.Linear(k, n).cuda().bfloat16()
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    f8 = Fp8BlockLinear.from_float(lin)
    i8 = Int8BlockLinear.from_float(lin, block_size=128)
    w8 = Int8Linear.from_float(lin)
    q, s = ext.quant_groups(x, 128, torch.float8_e4m3fn, False)
    rows = [
        ("torch.empty(16, 256) bf16", lambda: torch.empty(m, n, device="cuda", dtype=torch.bfloat16)),
        ("F.linear bf16 (+bias)", lambda: F.linear(x, lin.weight, lin.bias)),
        ("lin(x) (nn.Linear module)", lambda: lin(x)),
        ("ext.quant_groups fp8", lambda: ext.quant_groups(x, 128, torch.float8_e4m3fn, False)),
        ("ext.block_gemv fp8 (pre-quantized)", lambda: ext.block_gemv(q, f8.weight, s, f8.weight_scale, f8.bias,
                                                                     torch.bfloat16, 128, 7, 0)),
        ("ext.block_linear_fast fp8", lambda: ext.block_linear_fast(x, f8.weight, f8.weight_scale, f8.bias, 128, 7,
                                                                    torch.bfloat16, 0, 16)),
        ("ops.block_linear.block_linear_fast fp8", lambda: block_linear.block_linear_fast(
            x, f8.weight, f8.weight_scale, f8.bias, torch.bfloat16, "none", 128, True)),
        ("Fp8BlockLinear.forward(x)", lambda: f8.forward(x)),
        ("Fp8BlockLinear(x)", lambda: f8(x)),
        ("Int8BlockLinear(x)", lambda: i8(x)),
        ("Int8Linear(x) (w8a8_linear C++ path)", lambda: w8(x)),
    ]
    lines = [f"# host cost per eager call, {torch.cuda.get_device_name()}, M x N x K = {m} x {n} x {k}, torch "
             f"{torch.__version__}", "", "| call | us per call |", "|---|---|"]
    for name, fn in rows:
        us = host_us(fn)
        lines.append(f"| {name} | {us:.2f} |")
        print(lines[-1], flush=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
