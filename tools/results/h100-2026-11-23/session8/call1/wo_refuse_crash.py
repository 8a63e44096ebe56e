"""Session 8 call 1: the call that kills the process (session7/call5 probe_refuse.log), alone, for a debugger's
backtrace: ext.wo_gemm asked for variant 5 (M capacity 1) at M = 2."""
import faulthandler
import torch
from cutlass_gemm.runtime import extension
from cutlass_gemm.quant import prepack, quantize_weight_only

faulthandler.enable()
ext = extension.load()
p = prepack(quantize_weight_only(torch.randn(64, 256), 4, 64, zero_point=False, scale_dtype=torch.bfloat16), device="cuda")
x = torch.randn(2, 256, device="cuda").bfloat16()
print("packed", flush=True)
try:
    ext.wo_gemm(x, p.qweight, p.scales, None, None, 4, 64, 64, 0, 5)
except RuntimeError as e:
    print("raised", str(e)[:200])
