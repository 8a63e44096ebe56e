"""Session 7 call 5: which extension call segfaults? A TORCH_CHECK thrown from wo_gemm (variant above its
capacity) killed the process in calls 3 and 4; here the same call and two other TORCH_CHECK throws of the
extension, each in its own child process with faulthandler on, so the first crash names itself."""
import subprocess
import sys

PRE = """
import faulthandler, sys, torch
faulthandler.enable()
from cutlass_gemm.runtime import extension
ext = extension.load()
print("loaded", ext is not None, flush=True)
"""
CASES = {
    "quant_groups bad group (TORCH_CHECK in quant_ops.cu)":
        "x = torch.randn(4, 256, device='cuda').bfloat16()\n"
        "try:\n    ext.quant_groups(x, 48, torch.int8, False)\nexcept RuntimeError as e:\n    print('raised', str(e)[:80])\n",
    "wo_gemm bits=5 (TORCH_CHECK before any kernel choice)":
        "x = torch.randn(2, 256, device='cuda').bfloat16()\nq = torch.zeros(64, 32, dtype=torch.int32, device='cuda')\n"
        "s = torch.ones(4, 64, device='cuda').bfloat16()\n"
        "try:\n    ext.wo_gemm(x, q, s, None, None, 5, 64, 64, 0, 0)\nexcept RuntimeError as e:\n    print('raised', str(e)[:80])\n",
    "wo_gemm variant 5 at M = 2 (the crashing call)":
        "from cutlass_gemm.quant import prepack, quantize_weight_only\n"
        "p = prepack(quantize_weight_only(torch.randn(64, 256), 4, 64, zero_point=False, scale_dtype=torch.bfloat16), device='cuda')\n"
        "x = torch.randn(2, 256, device='cuda').bfloat16()\nprint('packed', flush=True)\n"
        "try:\n    ext.wo_gemm(x, p.qweight, p.scales, None, None, 4, 64, 64, 0, 5)\nexcept RuntimeError as e:\n    print('raised', str(e)[:80])\n",
}
for name, body in CASES.items():
    r = subprocess.run([sys.executable, "-c", PRE + body], capture_output=True, text=True, timeout=300)
    print(f"== {name}: rc {r.returncode}\n{r.stdout}{r.stderr[-3000:]}", flush=True)
