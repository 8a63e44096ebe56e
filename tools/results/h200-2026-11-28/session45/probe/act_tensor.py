"""Session 45 check: per-tensor scale kernels with an activation epilogue (a constant node beside the late-read scalar,
generator 5), fp8 relu6 and int8 relu, 256 x 1024 x 2048: every element against float64, and with the scale written by
the kernel right ahead of a programmatic launch, the same bits as a plain launch."""
import sys

import torch

import cutlass_gemm
from cutlass_gemm.runtime import loader

torch.manual_seed(0)
M, N, K = 256, 1024, 2048
fails = 0
for dt, act, sb_shape in ((torch.float8_e4m3fn, "relu6", (1,)), (torch.int8, "relu", (1, N))):
    if dt is torch.int8:
        a = torch.randint(-128, 128, (M, K), dtype=dt, device="cuda")
        b = torch.randint(-128, 128, (N, K), dtype=dt, device="cuda")
    else:
        a = torch.randn(M, K, device="cuda").to(dt)
        b = torch.randn(N, K, device="cuda").to(dt)
    sa = torch.tensor([0.02], device="cuda")
    sb = torch.rand(*sb_shape, device="cuda") * 0.02 + 0.01
    bias = torch.randn(N, device="cuda").bfloat16()
    ref = (a.double() @ b.double().t()) * sa.double() * sb.double() + bias.double()
    ref = ref.clamp(0, 6) if act == "relu6" else ref.clamp_min(0)
    loader.set_programmatic_launch(False)
    plain = cutlass_gemm.scaled_mm(a, b.t(), sa, sb, torch.bfloat16, bias, activation=act)
    bad = ((plain.double() - ref).abs() > 1e-2 * ref.abs() + 2e-3 * ref.abs().max()).sum().item()
    loader.set_programmatic_launch(True)
    same = True
    for i in range(5):
        live = torch.full_like(sa, 7.0)
        cutlass_gemm.scaled_mm(a, b.t(), live, sb, torch.bfloat16, bias, activation=act)  # old value read once
        live.copy_(sa)  # the kernel right ahead writes the scale
        out = cutlass_gemm.scaled_mm(a, b.t(), live, sb, torch.bfloat16, bias, activation=act)
        same &= bool(torch.equal(out, plain))
    torch.cuda.synchronize()
    print(f"{dt} {act}: {bad} elements off float64, early launch same bits as plain: {same}")
    fails += bad > 0 or not same
sys.exit(1 if fails else 0)
