import os, sys, time
sys.path.insert(0, "tools"); sys.path.insert(0, ".")
import torch
from torch.utils.cpp_extension import load
from bench_common import gpu_time_us
here = os.path.dirname(os.path.abspath(__file__))
import cutlass_gemm as cg
from cutlass_gemm.runtime import extension
mods = {}
for tag, flags in {"libflags": ["-O3", "-std=c++17", "-gencode=arch=compute_90,code=sm_90", "-gencode=arch=compute_90,code=compute_90"]}.items():
    d = f"/tmp/qb_{tag}"; os.makedirs(d, exist_ok=True)
    t0 = time.time()
    mods[tag] = load(f"qexp_{tag.replace('-', '_')}", [f"{here}/bind.cpp", f"{here}/qexp.cu"], extra_cuda_cflags=flags, build_directory=d)
    print(f"{tag} built in {time.time()-t0:.0f} s", flush=True)
for m, k in ((16, 4096), (2048, 4096), (2048, 8192), (8192, 4096), (8192, 8192)):
    n = max(2, min(12, (600 << 20) // (m * k * 2)))
    xs = [torch.randn(m, k, device="cuda").bfloat16() for _ in range(n)]
    q = torch.empty(m, k, dtype=torch.int8, device="cuda"); s = torch.empty(m, dtype=torch.float32, device="cuda")
    i = [0]
    def nx():
        i[0] = (i[0] + 1) % n; return xs[i[0]]
    res = {}
    for tag, mod in mods.items():
        for v in (0, 1, 10, 11, 0, 1, 10, 11):
            res[f"{tag} v{v}" + ("" if f"{tag} v{v}" not in res else " again")] = gpu_time_us(lambda: mod.run(v, nx(), q, s))
    print(f"M={m} K={k}: " + ", ".join(f"{a} {b:.2f}" for a, b in res.items()), flush=True)
