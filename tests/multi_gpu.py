"""Child process of test_multi_gpu_gpu.py: the library on the second of two visible GPUs while the first stays the
current device, as in a process that spreads a model over its GPUs (Hugging Face's device_map="auto").

Checks, each output compared with its twin on cuda:0 (the same weights and inputs; equal within 1e-3 of the norm,
as a split reduction may add in another order), its device checked, and the current device checked to be cuda:0
after every call:
  net        every quantize_model scheme's sub-network (compile_first.Net: linear layers, 1x1 / 3x3 convolutions),
             quantized on the CPU and moved to cuda:1 BEFORE anything ran on cuda:0 (kernels first loaded for
             device 1), at compile_first.CALLS' sizes, eagerly
  stream     the same on a side stream of cuda:1 (the ops run on that device's current stream)
  compiled   the cuda:1 net compiled by Inductor (fullgraph=True)
  graph      the cuda:1 net captured into a CUDA graph on cuda:1 and replayed on new inputs
  split      a model over both GPUs: w8a8-int8 and w4a16 layers on cuda:0, their output moved to cuda:1 layers
  ops        the 12 public ops (test_compile_first._op_cases) on cuda:1 tensors
Prints one JSON line: {"results": [{"check", "name", "rows", "ok", "err", "device"}, ...]}.

    python tests/multi_gpu.py
"""
from __future__ import annotations

import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from torch import nn  # noqa: E402

import compile_first as cf  # noqa: E402
import cutlass_gemm.nn as cnn  # noqa: E402

RESULTS = []


def record(check, name, rows, got, want) -> None:
    """One comparison: got on cuda:1 (or where the check puts it) against want on cuda:0, both float."""
    if not got.dtype.is_floating_point or got.element_size() == 1:  # integer and fp8 outputs: bit for bit
        bits = lambda t: t.cpu().view(torch.uint8) if t.element_size() == 1 else t.cpu()  # noqa: E731
        err = 0.0 if torch.equal(bits(got), bits(want)) else 1.0
    else:
        g, w = got.double().cpu(), want.double().cpu()
        err = float((g - w).norm() / w.norm().clamp_min(1e-30)) if torch.isfinite(g).all() else float("inf")
    RESULTS.append({"check": check, "name": name, "rows": rows, "err": err, "device": str(got.device),
                    "ok": err <= 1e-3 and tuple(got.shape) == tuple(want.shape) and got.dtype == want.dtype
                    and torch.cuda.current_device() == 0})


def inputs(dtype, device):
    gen = torch.Generator().manual_seed(1)
    return [(torch.randn(b, 64, s, s, generator=gen).to(dtype).to(device),
             torch.randn(m, 256, generator=gen).to(dtype).to(device)) for m, b, s in cf.CALLS]


def names():
    return [f"{k}/{i}" for k, convs in cf.SCHEMES.items() for i in range(2 if convs else 1)]


def main() -> None:
    warnings.simplefilter("ignore")
    assert torch.cuda.device_count() >= 2, "needs two visible GPUs"
    torch.cuda.set_device(0)
    dtype = torch.bfloat16
    net1 = cf.Net(dtype, "cuda:1")
    in1 = inputs(dtype, "cuda:1")
    with torch.no_grad():
        eager1 = [[t.clone() for t in net1(img, x)] for img, x in in1]  # device 1 first: no kernel loaded yet
        assert torch.cuda.current_device() == 0
        side = torch.cuda.Stream(device="cuda:1")
        side.wait_stream(torch.cuda.current_stream("cuda:1"))
        with torch.cuda.stream(side):
            streamed = [[t.clone() for t in net1(img, x)] for img, x in in1]
        torch.cuda.current_stream("cuda:1").wait_stream(side)
        net0 = cf.Net(dtype, "cuda:0")
        in0 = inputs(dtype, "cuda:0")
        eager0 = [net0(img, x) for img, x in in0]
        for (m, _, _), e1, s1, e0 in zip(cf.CALLS, eager1, streamed, eager0):
            for name, a, b, c in zip(names(), e1, s1, e0):
                record("net", name, m, a, c)
                record("stream", name, m, b, c)

        compiled = torch.compile(net1, fullgraph=True)
        for (m, _, _), (img, x), e0 in zip(cf.CALLS, in1, eager0):
            for name, a, c in zip(names(), compiled(img, x), e0):
                record("compiled", name, m, a, c)

        # a CUDA graph on cuda:1, captured with cuda:0 current (the capture stream is cuda:1's)
        m, b, s = cf.CALLS[1]
        static = [t.clone() for t in in1[1]]
        cap = torch.cuda.Stream(device="cuda:1")
        cap.wait_stream(torch.cuda.current_stream("cuda:1"))
        with torch.cuda.stream(cap):
            for _ in range(2):
                net1(*static)
        torch.cuda.current_stream("cuda:1").wait_stream(cap)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph, stream=cap):
            outs = net1(*static)
        for k, (img, x) in enumerate(in1):
            if tuple(img.shape) != tuple(static[0].shape) or tuple(x.shape) != tuple(static[1].shape):
                continue
            static[0].copy_(img)
            static[1].copy_(x)
            graph.replay()
            for name, a, c in zip(names(), outs, eager0[k]):
                record("graph", name, m, a.clone(), c)

        # a model split over the two GPUs (layers on cuda:0, the rest on cuda:1)
        # (the second part moved to cuda:0 for its twin and back: a layer's state follows .to() both ways)
        for scheme in ("w8a8-int8", "w4a16"):
            torch.manual_seed(2)
            first = nn.Sequential(nn.Linear(256, 512), nn.ReLU()).to(dtype)
            second = nn.Sequential(nn.Linear(512, 256)).to(dtype)
            for part in (first, second):
                cnn.quantize_model(part, scheme)
            first.to("cuda:0")
            for mrows in (5, 130):
                x = torch.randn(mrows, 256, generator=torch.Generator().manual_seed(3)).to(dtype).to("cuda:0")
                y = second.to("cuda:1")(first(x).to("cuda:1"))
                record("split", scheme, mrows, y, second.to("cuda:0")(first(x)))

        # the public ops on cuda:1 tensors, against the same calls on cuda:0
        from test_compile_first import _op_cases
        cases1, cases0 = _op_cases("cuda:1"), _op_cases("cuda:0")
        for (name, fn1, make1), (_, fn0, _) in zip(cases1, cases0):
            for mrows in (5, 130):
                args1 = make1(mrows)
                args0 = tuple(a.to("cuda:0") for a in args1)
                got, want = fn1(*args1), fn0(*args0)
                got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
                for g, w in zip(got, want):
                    if g is not None:
                        record("ops", name, mrows, g, w)
    torch.cuda.synchronize(0)
    torch.cuda.synchronize(1)
    print(json.dumps({"results": RESULTS}))


if __name__ == "__main__":
    main()
