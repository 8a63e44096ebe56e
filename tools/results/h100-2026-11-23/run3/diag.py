import os, sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import torch
from torch.utils.cpp_extension import load
from bench_common import gpu_time_us
here = os.path.dirname(os.path.abspath(__file__))
import cutlass_gemm as cg
from cutlass_gemm.runtime import extension
t0 = time.time(); ext = extension.load(); print(f"library ext in {time.time()-t0:.0f} s", ext, flush=True)
qx = load("qexp", [f"{here}/bind.cpp", f"{here}/qexp.cu"], extra_cuda_cflags=["-O3", "-gencode=arch=compute_90a,code=sm_90a"],
          build_directory="/tmp/qb", verbose=False)
from torch.profiler import profile, ProfilerActivity
for m, k in ((16, 4096), (2048, 4096), (2048, 8192), (8192, 4096)):
    n = max(2, min(12, (600 << 20) // (m * k * 2)))
    xs = [torch.randn(m, k, device="cuda").bfloat16() for _ in range(n)]
    q = torch.empty(m, k, dtype=torch.int8, device="cuda"); s = torch.empty(m, dtype=torch.float32, device="cuda")
    i = [0]
    def nx():
        i[0] = (i[0] + 1) % n; return xs[i[0]]
    cases = {
        "exp v1": lambda: qx.run(1, nx(), q, s),
        "exp v2": lambda: qx.run(2, nx(), q, s),
        "ext.quant_rows": lambda: ext.quant_rows(nx(), 0, torch.int8, None, None, None, None, None, 0.0),
        "torch.ops": lambda: torch.ops.cutlass_gemm.quantize_per_token(nx(), torch.int8, None),
        "cg.quantize_per_token": lambda: cg.quantize_per_token(nx()),
    }
    for name, f in cases.items():
        print(f"M={m} K={k} {name}: {gpu_time_us(f):.2f} us", flush=True)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            cg.quantize_per_token(nx())
        torch.cuda.synchronize()
    print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=8), flush=True)
