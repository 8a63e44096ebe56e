"""Session 8 call 6 (call 5's probe plus the Python-direct op call, after the layer's C++ entry): eager host cost of a weight-only layer call, side by side in one process (1 x 4096 x 4096,
bf16, int4 g128): `WeightOnlyLinear(x)` (the new direct path), the same tensors through the dispatcher
(`torch.ops.cutlass_gemm.weight_only_mm`, the path every eager call took before), bf16 `F.linear`, and
`Int8Linear` dynamic (its C++ entry). Wall clock per call of 1000 back-to-back calls, median of 5, after warm-up;
the outputs of the two weight-only paths compared bit for bit."""
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import cutlass_gemm.nn as cnn
from cutlass_gemm.ops import weight_only_mm
from cutlass_gemm.quant.prepack import LAYOUT


def wall_us(fn, calls=1000, reps=5):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t0) * 1e6 / calls)
    return statistics.median(out)


torch.manual_seed(0)
lin = torch.nn.Linear(4096, 4096, bias=False, device="cuda", dtype=torch.bfloat16)
x = torch.randn(1, 4096, device="cuda", dtype=torch.bfloat16)
wo = cnn.WeightOnlyLinear.from_float(lin, bits=4, group_size=128)
i8 = cnn.Int8Linear.from_float(lin)
op = lambda: torch.ops.cutlass_gemm.weight_only_mm(x, wo.qweight, wo.scales, wo.zeros, wo.bias, wo.perm, layout=LAYOUT,
                                                   bits=4, group_size=128, n=4096)
direct = lambda: weight_only_mm(x, wo.qweight, wo.scales, wo.zeros, wo.bias, wo.perm, layout=LAYOUT, bits=4,
                                group_size=128, n=4096)
with torch.no_grad():
    same = torch.equal(wo(x), op()) and torch.equal(direct(), op())
    res = {"same_output": same, "WeightOnlyLinear_us": wall_us(lambda: wo(x)),
           "weight_only_mm_dispatcher_us": wall_us(op),
           "weight_only_mm_python_direct_us": wall_us(direct), "bf16_F_linear_us": wall_us(lambda: F.linear(x, lin.weight)),
           "Int8Linear_dynamic_us": wall_us(lambda: i8(x))}
print(json.dumps(res, indent=1))
json.dump(res, open(os.path.join(sys.argv[1], "wo_host.json"), "w"), indent=1)
