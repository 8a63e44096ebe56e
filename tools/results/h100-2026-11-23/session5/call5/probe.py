"""Probe (call 5): is the Int8Linear dynamic wall-clock regression of call4/layer.md (16x8192x8192: 42.8 us
wall vs 32.2 us device; 32.9 us in quant_v2/call2) real? Same timing method as tools/bench_e2e.py,
rows interleaved and repeated, plus the host time per call (no sync) and whether the Python path runs."""
import functools, sys, time
import torch
sys.path.insert(0, "tools")
from bench_common import gpu_time_us, wall_time_us
import cutlass_gemm.nn as cnn
from cutlass_gemm.ops import linear as L

torch.manual_seed(0)
m, n, k = 16, 8192, 8192
lins = [torch.nn.Linear(k, n, bias=True, device="cuda", dtype=torch.bfloat16) for _ in range(4)]
x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
py_calls = [0]
orig = L._gemm
def counted(*a, **kw):
    py_calls[0] += 1
    return orig(*a, **kw)
L._gemm = counted
rows = {
    "bf16 F.linear": [functools.partial(torch.nn.functional.linear, x, l.weight, l.bias) for l in lins],
    "Int8Linear dynamic": [functools.partial(cnn.Int8Linear.from_float(l, act="dynamic"), x) for l in lins],
    "Int8Linear asym": [functools.partial(cnn.Int8Linear.from_float(l, act="dynamic_asym"), x) for l in lins],
    "Fp8Linear dynamic": [functools.partial(cnn.Fp8Linear.from_float(l, act="dynamic"), x) for l in lins],
    "Int8Linear static": [functools.partial(cnn.Int8Linear.from_float(l, act="static", calibration_data=[x]), x) for l in lins],
}
def cyc(calls):
    i = [0]
    def fn():
        i[0] = (i[0] + 1) % len(calls)
        return calls[i[0]]()
    return fn
for rnd in range(2):
    for name in ["bf16 F.linear", "Int8Linear dynamic", "Int8Linear asym", "Fp8Linear dynamic", "Int8Linear static", "Int8Linear dynamic"]:
        fn = cyc(rows[name])
        for _ in range(20): fn()
        torch.cuda.synchronize()
        py0 = py_calls[0]
        t0 = time.perf_counter()
        for _ in range(200): fn()
        host = (time.perf_counter() - t0) * 1e6 / 200
        torch.cuda.synchronize()
        py = py_calls[0] - py0
        dev = gpu_time_us(fn)
        wall = wall_time_us(fn, calls=200, reps=5)
        print(f"round {rnd} {name:22s} device {dev:7.2f} us  wall {wall:7.2f} us  host/call (no sync) {host:6.2f} us  python-path calls {py}/200", flush=True)
