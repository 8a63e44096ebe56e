"""Session 57 probe: the SM89 fp8 kernels (CUTLASS 2 multistage, mma.sync e4m3) beside the SM80 int8 kernels
(mma.sync s8) on the same H100-class GPU, from sm_90 machine code, with torch._scaled_mm (SM90 wgmma) and bf16 mm as
context. An H200 is not an Ada GPU: this shows that the two mma.sync families run at comparable speed here (no
spill or schedule defect in the new one), not what an L40S does. Run from the repository root with
CUTLASS_GEMM_SM89_ARCHS=89,90 CUTLASS_GEMM_SM80_ARCHS=80,90 and the kernels built."""
import json
import sys

import torch

sys.path.insert(0, "tools")
from bench_common import gpu_time_us  # noqa: E402
import cutlass_gemm  # noqa: E402
from cutlass_gemm.ops import gemm as ops  # noqa: E402
from cutlass_gemm.runtime import fastpath  # noqa: E402

SHAPES = [(16, 8192, 8192), (128, 8192, 8192), (2048, 8192, 8192), (4096, 4096, 4096)]


def use_family(sm):
    ops._device_sm[0] = sm
    ops._plans.clear()
    ops._selected.clear()
    fast = fastpath.module()
    if fast is not None:
        fast.clear_plans()


def operands(m, n, k, fp8):
    g = torch.Generator(device="cuda").manual_seed(m + n + k)
    if fp8:
        a = (torch.randn(m, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
        w = (torch.randn(n, k, device="cuda", generator=g) * 4).to(torch.float8_e4m3fn)
    else:
        a = torch.randint(-128, 128, (m, k), dtype=torch.int8, device="cuda", generator=g)
        w = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g)
    sa = torch.rand(m, 1, device="cuda", generator=g) * 1e-2 + 1e-3
    sb = torch.rand(1, n, device="cuda", generator=g) * 1e-2 + 1e-3
    return a, w, sa, sb


rows = []
for m, n, k in SHAPES:
    row = {"shape": f"{m}x{n}x{k}"}
    for name, sm, fp8 in (("sm89 e4m3", 89, True), ("sm80 int8", 80, False)):
        use_family(sm)
        a, w, sa, sb = operands(m, n, k, fp8)
        out = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16)
        ref = (sa.double() * sb.double()) * (a.double() @ w.double().t())
        row[name + " rel err"] = ((out.double() - ref).norm() / ref.norm()).item()
        row[name + " kernel"] = next(iter(ops._selected.values()))[0].config.name
        row[name + " us"] = gpu_time_us(lambda: cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16))
    a, w, sa, sb = operands(m, n, k, True)
    row["torch._scaled_mm e4m3 (sm90) us"] = gpu_time_us(
        lambda: torch._scaled_mm(a, w.t(), scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16))
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    wb = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    row["bf16 mm us"] = gpu_time_us(lambda: x @ wb.t())
    for key in ("sm89 e4m3", "sm80 int8"):
        row[key + " TOPS"] = 2 * m * n * k / row[key + " us"] / 1e6
    print(json.dumps(row), flush=True)
    rows.append(row)
use_family(90)
print("| M x N x K | SM89 e4m3 us (TOPS) | SM80 int8 us (TOPS) | e4m3 / int8 time | torch._scaled_mm (SM90) us | bf16 mm us |")
print("|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r['shape']} | {r['sm89 e4m3 us']:.1f} ({r['sm89 e4m3 TOPS']:.0f}) | {r['sm80 int8 us']:.1f} "
          f"({r['sm80 int8 TOPS']:.0f}) | {r['sm89 e4m3 us'] / r['sm80 int8 us']:.2f} | "
          f"{r['torch._scaled_mm e4m3 (sm90) us']:.1f} | {r['bf16 mm us']:.1f} |")
