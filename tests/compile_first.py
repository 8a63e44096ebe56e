"""Child process of test_compile_first.py / test_compile_first_gpu.py: every quantize_model scheme's layers compiled
BEFORE any eager call of the library in this process (what a serving engine does: quantize, torch.compile, serve),
under fullgraph=True, then called at batch sizes that change so that torch.compile's automatic dynamic shapes
recompile them with a symbolic batch. Only then the same model runs eagerly, and each compiled output is compared
with its eager twin. Prints one JSON line: {"results": [...], "frames": ..., "graphs": ...}.

    python tests/compile_first.py DEVICE BACKEND MODE

MODE: "default" (torch.compile's automatic dynamic shapes: one graph for the first sizes, one with them symbolic),
"marked" (the batch, rows and image sides marked dynamic before the first call, as vLLM marks its token dimension:
any guard that narrows them fails the compile) or "reduce-overhead" (CUDA graphs, one per size, replayed).
"""
from __future__ import annotations

import json
import sys
import warnings

import torch
from torch import nn

import cutlass_gemm.nn as cnn

#: scheme -> whether its sub-network carries convolutions (the schemes quantize_model converts them under)
SCHEMES = {"w8a8-int8": True, "w8a8-int8-asym": False, "w8a8-int8-static": True, "w8a8-fp8": False,
           "w8a8-fp8-static": False, "fp8-block128": False, "w8a8-int8-block128": False, "w4a16": True,
           "w8a16": False}
#: (rows of the linear input, images, image side): the first call compiles for its shapes, the second makes torch
#: mark the changed sizes dynamic; the last repeats the second (a CUDA graph replay under reduce-overhead)
CALLS = ((5, 2, 8), (36, 3, 7), (130, 4, 9), (36, 3, 7))


class Sub(nn.Module):
    """Two linear layers (and, where the scheme converts them, a 1x1 and a 3x3 convolution)."""

    def __init__(self, convs: bool):
        super().__init__()
        self.l1, self.l2 = nn.Linear(256, 512), nn.Linear(512, 256)  # test_nn_gpu's MLP: its kernels
        self.c1 = nn.Conv2d(64, 64, 1) if convs else None
        self.c3 = nn.Conv2d(64, 64, 3, padding=1) if convs else None

    def forward(self, img, x):
        y = self.l2(torch.relu(self.l1(x)))
        if self.c1 is None:
            return (y,)
        return y, self.c3(torch.relu(self.c1(img)))


class Net(nn.Module):
    def __init__(self, dtype, device):
        super().__init__()
        torch.manual_seed(0)
        self.subs = nn.ModuleDict()
        for name, convs in SCHEMES.items():
            sub = Sub(convs).to(dtype)
            kw = {}
            if "static" in name:
                batch = (torch.randn(2, 64, 8, 8, dtype=dtype), torch.randn(16, 256, dtype=dtype))
                kw["calibration"] = cnn.calibrate(sub, [batch], forward=lambda m, b: m(*b),
                                                  dtype=torch.float8_e4m3fn if "fp8" in name else torch.int8)
            report = cnn.quantize_model(sub, name, **kw)  # on the CPU, then moved: the documented order
            assert not report.skipped, (name, report.skipped)
            self.subs[name.replace("-", "_")] = sub.to(device)

    def forward(self, img, x):
        return [t for sub in self.subs.values() for t in sub(img, x)]


def main(device: str, backend: str, mode: str) -> None:
    warnings.simplefilter("ignore")  # the CPU reference path announces itself on every call
    dtype = torch.bfloat16
    net = Net(dtype, device)
    names = [f"{k}/{i}" for k, convs in SCHEMES.items() for i in range(2 if convs else 1)]
    kw = {"backend": backend, "mode": mode} if mode == "reduce-overhead" else {"backend": backend}
    compiled = torch.compile(net, fullgraph=True, **kw)
    gen = torch.Generator().manual_seed(1)
    inputs = [(torch.randn(b, 64, s, s, generator=gen, dtype=torch.float32).to(dtype).to(device),
               torch.randn(m, 256, generator=gen, dtype=torch.float32).to(dtype).to(device)) for m, b, s in CALLS]
    if mode == "marked":
        for img, x in inputs:
            torch._dynamo.mark_dynamic(x, 0)
            torch._dynamo.mark_dynamic(img, (0, 2, 3))
    got = []
    with torch.no_grad():
        for img, x in inputs:  # compiled first: no eager call of the library before this loop
            got.append([t.clone() for t in compiled(img, x)])  # clone: a CUDA graph's outputs are overwritten
        want = [net(img, x) for img, x in inputs]
    results = []
    for (m, b, s), g, w in zip(CALLS, got, want):
        for name, gt, wt in zip(names, g, w):
            err = float((gt.double() - wt.double()).norm() / wt.double().norm().clamp_min(1e-30))
            results.append({"name": name, "rows": m, "images": b, "shape_ok": tuple(gt.shape) == tuple(wt.shape),
                            "finite": bool(torch.isfinite(gt).all()), "rel_err": err})
    counters = torch._dynamo.utils.counters
    print(json.dumps({"results": results, "graphs": counters["stats"]["unique_graphs"],
                      "frames_ok": counters["frames"]["ok"]}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
