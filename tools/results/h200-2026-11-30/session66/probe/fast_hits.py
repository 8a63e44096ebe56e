#!/usr/bin/env python3
"""Session 66 probe: does the compiled layer's op take the same C++ one-call path as the eager layer? Counts, over
100 calls each (4096 x 4096, M = 16), how often the eager and the Inductor-compiled layer returned through the C++
calls (`_ext.w8a8_linear` returning a tensor; `block_linear_fast`, `layer_fast_call` / `mixed_fast_call` returning one),
and times both (wall clock, 200 back-to-back calls, median of 5).

    python fast_hits.py OUT.json
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[4]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

import torch  # noqa: E402
from torch import nn  # noqa: E402

import cutlass_gemm.nn as cnn  # noqa: E402
from bench_common import wall_time_us  # noqa: E402
from cutlass_gemm.ops import block_linear as bl, linear as lin_ops, wo_layer  # noqa: E402
from cutlass_gemm.runtime import fastpath  # noqa: E402

HITS = {"calls": 0}


def counting(fn, name):
    def wrapped(*a, **k):
        r = fn(*a, **k)
        if isinstance(r, torch.Tensor):
            HITS[name] = HITS.get(name, 0) + 1
        return r
    return wrapped


def main(out):
    ext = fastpath.module()
    ext.w8a8_linear = counting(ext.w8a8_linear, "w8a8_linear")
    bl.block_linear_fast = counting(bl.block_linear_fast, "block_linear_fast")
    wo_layer.layer_fast_call = counting(wo_layer.layer_fast_call, "layer_fast_call")
    wo_layer.mixed_fast_call = counting(wo_layer.mixed_fast_call, "mixed_fast_call")
    rows = []
    for scheme in ("w8a8-int8", "w8a8-fp8", "fp8-block128", "w4a16"):
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4096, 4096)).to(torch.bfloat16)
        cnn.quantize_model(model, scheme)
        layer = model[0].cuda()
        x = torch.randn(16, 4096, device="cuda", dtype=torch.bfloat16)
        with torch.no_grad():
            comp = torch.compile(layer, fullgraph=True)
            comp(x)
            for arm, fn in (("eager", lambda: layer(x)), ("compiled", lambda: comp(x))):
                fn()
                HITS.clear()
                for _ in range(100):
                    fn()
                row = {"scheme": scheme, "arm": arm, "hits_per_100": dict(HITS), "wall_us": wall_time_us(fn)}
                rows.append(row)
                print(json.dumps(row), flush=True)
    Path(out).write_text(json.dumps({"rows": rows, "device": torch.cuda.get_device_name()}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
