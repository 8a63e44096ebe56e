"""Session 57 probe: the SM80 int8 implicit-GEMM conv kernels (CUTLASS 2 mainloop + visitor epilogue) on the H200
from sm_90 machine code, beside cuDNN fp16 (channels_last) on ResNet-50's 3x3 convs at batch 32 (bf16 out, bias,
ReLU, int8 in: the chained layer's form). An H200 is not an A100: this checks that the kernel runs at a sane speed
for a mma.sync kernel (no spill, no schedule defect), not what an A100 does. Run from the repository root with
CUTLASS_GEMM_SM80_ARCHS=80,90 and the SM80 conv kernels built."""
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, "tools")
from bench_common import gpu_time_us  # noqa: E402
from cutlass_gemm.ops import conv_igemm  # noqa: E402
from cutlass_gemm.ops import gemm as gemm_ops  # noqa: E402

SHAPES = [  # (n, h, w, ci, co, stride)
    (32, 56, 56, 64, 64, 1), (32, 56, 56, 128, 128, 2), (32, 28, 28, 128, 128, 1), (32, 28, 28, 256, 256, 2),
    (32, 14, 14, 256, 256, 1), (32, 14, 14, 512, 512, 2), (32, 7, 7, 512, 512, 1)]
gemm_ops._device_sm[0] = 80
print("| conv (batch 32, 3x3) | SM80 kernel | us | TOPS | cuDNN fp16 us | x cuDNN |")
print("|---|---|---|---|---|---|")
for n, h, w, ci, co, st in SHAPES:
    g = torch.Generator(device="cuda").manual_seed(ci + co)
    xq = torch.randint(-128, 128, (n, h, w, ci), dtype=torch.int8, device="cuda", generator=g)
    wq = torch.randint(-127, 128, (co, 3, 3, ci), dtype=torch.int8, device="cuda", generator=g)
    sx, sw = torch.tensor([1e-3], device="cuda"), torch.rand(co, device="cuda", generator=g) * 1e-3
    bias = torch.randn(co, device="cuda", generator=g).bfloat16()
    args = (xq, wq, sx, sw, bias, [st, st], [1, 1], [1, 1], "relu", torch.bfloat16)
    conv_igemm._plans.clear()
    conv_igemm.conv2d_int8_igemm(*args)  # plans (and loads) the kernel
    name = next(iter(conv_igemm._plans.values())).lib.config.name
    t = gpu_time_us(lambda: conv_igemm.conv2d_int8_igemm(*args))
    x16 = torch.randn(n, ci, h, w, device="cuda", dtype=torch.half).contiguous(memory_format=torch.channels_last)
    w16 = torch.randn(co, ci, 3, 3, device="cuda", dtype=torch.half).contiguous(memory_format=torch.channels_last)
    b16 = torch.randn(co, device="cuda", dtype=torch.half)
    tc = gpu_time_us(lambda: F.conv2d(x16, w16, b16, st, 1))
    p = (h + 2 - 3) // st + 1
    ops = 2 * n * p * p * co * 9 * ci
    print(f"| {ci}->{co} s{st}, {h}x{w} | {name.split('_t')[1]} | {t:.1f} | {ops / t / 1e6:.0f} | {tc:.1f} | "
          f"{tc / t:.2f} |", flush=True)
