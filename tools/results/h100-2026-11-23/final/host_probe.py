"""Host cost of one layer call (enqueue only: the GPU is held by a long sleep kernel so no call waits on
it), beside the back-to-back wall clock and the kernels each call launches. Diagnostic for the wall-clock
rows of `tools/benchmark.py layer` at 16x8192x8192."""
import statistics, sys, time
import torch
import torch.nn.functional as F
sys.path.insert(0, ".")
from cutlass_gemm.nn import Fp8Linear, Int8Linear
from cutlass_gemm.ops import linear as lops

torch.manual_seed(0)
dev = "cuda"


def enqueue_us(fn, calls=150, reps=7):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    res = []
    for _ in range(reps):
        torch.cuda._sleep(int(2e9 / 1000 * 60))  # ~60+ ms of GPU sleep: the queue never drains
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        res.append((time.perf_counter() - t0) * 1e6 / calls)
        torch.cuda.synchronize()
    return statistics.median(res)


def wall_us(fn, calls=1000, reps=7):
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    res = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        res.append((time.perf_counter() - t0) * 1e6 / calls)
    return statistics.median(res), min(res), max(res)


for m in (1, 16):
    n = k = 8192
    lin = torch.nn.Linear(k, n, bias=True, device=dev, dtype=torch.bfloat16)
    x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
    i8 = Int8Linear.from_float(lin)
    f8 = Fp8Linear.from_float(lin)
    ext = lops.fastpath.module()
    cands = {
        "bf16 F.linear": lambda: F.linear(x, lin.weight, lin.bias),
        "Int8Linear(x)": lambda: i8(x),
        "Fp8Linear(x)": lambda: f8(x),
        "Int8Linear.forward(x) (no Module.__call__)": lambda: i8.forward(x),
        "w8a8_linear int8": lambda: lops.w8a8_linear(x, i8.weight, i8.weight_scale, i8.bias),
        "ext.w8a8_linear int8 (C++ entry)": lambda: ext.w8a8_linear(x, i8.weight, i8.weight_scale, i8.bias, 0,
                                                                    None, None, None, None),
        "ext.w8a8_linear fp8 (C++ entry)": lambda: ext.w8a8_linear(x, f8.weight, f8.weight_scale, f8.bias, 0,
                                                                   None, None, None, None),
        "ext.quant_rows int8 (quant only)": lambda: ext.quant_rows(x, 0, torch.int8, None, None, None, None, None, 0.0),
        "torch.empty((m, n))": lambda: torch.empty((m, n), device=dev, dtype=torch.bfloat16),
    }
    print(f"== M={m} N={n} K={k}")
    for name, fn in cands.items():
        e = enqueue_us(fn)
        w = wall_us(fn)
        print(f"  {name:45s} host enqueue {e:7.2f} us | back-to-back wall median {w[0]:7.2f} (min {w[1]:.2f}, max {w[2]:.2f})")
    for name in ("Int8Linear(x)", "Fp8Linear(x)"):
        fn = cands[name]
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            for _ in range(10):
                fn()
            torch.cuda.synchronize()
        kern = [(e.key, e.count) for e in prof.key_averages() if e.device_type == torch.autograd.DeviceType.CUDA]
        print(f"  kernels of 10 calls of {name}: {kern}")
