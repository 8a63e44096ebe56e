import sys, torch, torch.nn as nn
sys.path.insert(0, "tools/results/h100-2026-11-27/session33/probe")
import marlin
from marlin_vs import marlin_layer
n = k = 8192
q = torch.randint(-8, 8, (n, k), device="cuda", dtype=torch.int16)
s = (torch.rand(n, k // 128, device="cuda") * 0.01 + 1e-3).half()
w16 = (q.float() * s.float().repeat_interleave(128, dim=1)).half()
x = torch.randn(1, k, device="cuda", dtype=torch.half)
torch.cuda.synchronize()
for step in ("ours", "mg", "mp"):
    try:
        if step == "ours":
            from cutlass_gemm.nn import WeightOnlyLinear
            from cutlass_gemm.quant import WeightOnlyQuant, prepack
            lay = WeightOnlyLinear.from_packed(prepack(WeightOnlyQuant(q, s, None, 4, 128)), large_m_backend="cutlass_mixed")
        elif step == "mg":
            lay = marlin_layer(marlin, w16, s, 128)
        else:
            lay = marlin_layer(marlin, w16, s[:, :1].contiguous(), -1)
        y = lay(x); torch.cuda.synchronize()
        print(step, "ok", y.float().norm().item(), flush=True)
    except Exception as e:
        print(step, "FAILED", repr(e)[:300], flush=True)
        break
