"""With only the wheel of prebuilt kernels installed (no kernel cache, CUTLASS_GEMM_JIT=0, nvcc off PATH):
every kernel of the wheel serves its op and matches float64, nothing is built, and the nn layers run."""
import sys
import time
import torch
sys.path.insert(0, ".")
import cutlass_gemm
from cutlass_gemm.kernels import heuristics
from cutlass_gemm.runtime import build, loader, prebuilt
from cutlass_gemm.nn import Fp8Linear, Int8Linear

print("nvcc found by the library:", build.find_nvcc(), "| prebuilt dirs:", prebuilt.kernel_dirs(90))
torch.manual_seed(0)
n, k = 4096, 4096
ok = 0
for m in (1, 100, 1000):  # one M per tile of the table
    for fp8 in (False, True):
        dt = torch.float8_e4m3fn if fp8 else torch.int8
        a = (torch.randn(m, k, device="cuda") * 8).to(dt) if fp8 else torch.randint(-128, 128, (m, k), dtype=dt, device="cuda")
        w = (torch.randn(n, k, device="cuda") * 8).to(dt) if fp8 else torch.randint(-128, 128, (n, k), dtype=dt, device="cuda")
        sa = torch.rand(m, 1, device="cuda") + 0.5
        sb = torch.rand(1, n, device="cuda") * 1e-3
        bias = torch.randn(n, device="cuda").bfloat16()
        acc = a.double() @ w.double().t()
        calls = [("scaled", lambda: cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16), None),
                 ("scaled_bias", lambda: cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, bias), bias)]
        if not fp8:
            azp = torch.randint(-20, 20, (m,), dtype=torch.int32, device="cuda")
            adj = w.sum(1, dtype=torch.int32)
            calls.append(("scaled_azp_per_token", lambda: cutlass_gemm.scaled_mm_azp(
                a, w.t(), sa, sb, torch.bfloat16, adj, azp=azp, bias=bias), bias))
        for name, fn, b in calls:
            acc2 = acc - azp.double()[:, None] * adj.double()[None, :] if name == "scaled_azp_per_token" else acc
            ref = sa.double() * sb.double() * acc2 + (0 if b is None else b.double())
            out = fn()
            rel = ((out.double() - ref).norm() / ref.norm()).item()
            assert rel < 1e-2, (m, fp8, name, rel)
            ok += 1
libs = {cfg.name: str(lib.path) for cfg, lib in loader._loaded.items()}
assert loader.jit_builds == [], loader.jit_builds
assert all(prebuilt.owns(__import__("pathlib").Path(p)) for p in libs.values()), libs
assert set(libs) == {c.name for c in heuristics.prebuilt_configs(90)}, sorted(set(c.name for c in heuristics.prebuilt_configs(90)) - set(libs))
print(f"{ok} GEMM calls correct (float64 reference, rel err < 1e-2); {len(libs)} kernels, all loaded from the wheel; "
      f"no kernel built")
lin = torch.nn.Linear(k, n, device="cuda", dtype=torch.bfloat16)
x = torch.randn(16, k, device="cuda", dtype=torch.bfloat16)
ref = torch.nn.functional.linear(x.double(), lin.weight.double(), lin.bias.double())
for cls in (Int8Linear, Fp8Linear):
    t0 = time.perf_counter()
    y = cls.from_float(lin)(x)
    torch.cuda.synchronize()
    print(f"{cls.__name__}: rel err {((y.double() - ref).norm() / ref.norm()).item():.2e} "
          f"({time.perf_counter() - t0:.2f} s for the first call)")
