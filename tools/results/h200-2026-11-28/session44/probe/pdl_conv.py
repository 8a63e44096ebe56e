"""Session 44 probe: what a programmatic dependent launch is worth to the int8 conv kernels, timed in alternation.

`layers`: each 3x3 conv of ResNet-50 at batch 32 as an int8 chain runs it (int8 NHWC in, ReLU, int8 out with its
scale, the chain's guard): one CUDA graph of 20 calls captured with programmatic launches on, one with them off
(runtime/loader.set_programmatic_launch while capturing), and cuDNN fp16 without a bias (F.conv2d, channels_last);
the three graphs' replays alternate for 15 rounds (each queued behind a sleep, events), medians per call.
`resnet`: the chained ResNet-50 at batch 32 (BatchNorm folded, w8a8-int8-static, chain_int8) captured both ways and
the BatchNorm-folded fp16 cuDNN model, alternating replays, ms per forward.

Run in the kernel form the process's emitter writes (CG_PROBE_CONV_WAIT_FIRST=1: the wrapper whose every thread waits
first; unset: the scalars read after the mainloop, CUTLASS's own waits), each form with its own kernel cache.
"""
import copy
import json
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, "tools")
from resnet50 import RESNET50_CONVS, resnet50  # noqa: E402

import cutlass_gemm.nn as cnn  # noqa: E402
from cutlass_gemm.ops.conv_igemm import conv2d_int8_igemm  # noqa: E402
from cutlass_gemm.runtime import loader  # noqa: E402

CL = torch.channels_last


def graph_of(fn, calls, pdl):
    before = loader.set_programmatic_launch(pdl)
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        torch.cuda.synchronize()
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn()
    finally:
        loader.set_programmatic_launch(before)
    graph.replay()
    torch.cuda.synchronize()
    return graph


def alternate(graphs, rounds=15):
    times = [[] for _ in graphs]
    for _ in range(rounds):
        for j, g in enumerate(graphs):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(1_000_000)
            start.record()
            g.replay()
            end.record()
            end.synchronize()
            times[j].append(start.elapsed_time(end) * 1e3)
    return [statistics.median(t) for t in times]


def layers():
    torch.backends.cudnn.benchmark = True
    rows = []
    for name, ci, co, k, stride, hw in RESNET50_CONVS:
        if k != 3:
            continue
        g = torch.Generator(device="cuda").manual_seed(0)
        pad = 1
        x = torch.randn(32, ci, hw, hw, device="cuda", generator=g).half().contiguous(memory_format=CL)
        w = (torch.randn(co, ci, 3, 3, device="cuda", generator=g) * 0.05).half().contiguous(memory_format=CL)
        xq = torch.randint(-128, 128, (32, hw, hw, ci), dtype=torch.int8, device="cuda", generator=g)
        wq = torch.randint(-127, 128, (co, 3, 3, ci), dtype=torch.int8, device="cuda", generator=g)
        sx, guard, so = (torch.tensor([v], device="cuda") for v in (0.02, 0.02, 3.0))
        sw = torch.rand(co, device="cuda", generator=g) * 1e-3
        b = torch.randn(co, device="cuda", generator=g)

        def ours():
            return conv2d_int8_igemm(xq, wq, sx, sw, b, (stride, stride), (pad, pad), (1, 1), "relu", torch.int8,
                                     scale_out=so, scale_guard=guard)
        graphs = [graph_of(ours, 20, True), graph_of(ours, 20, False),
                  graph_of(lambda: F.conv2d(x, w, None, stride, pad), 20, True)]
        on, off, cudnn = (t / 20 for t in alternate(graphs))
        rows.append({"conv": name, "ci": ci, "co": co, "stride": stride, "hw": hw, "pdl_us": round(on, 2),
                     "plain_us": round(off, 2), "cudnn_f16_nobias_us": round(cudnn, 2),
                     "nobias_per_pdl": round(cudnn / on, 3), "nobias_per_plain": round(cudnn / off, 3),
                     "plain_per_pdl": round(off / on, 3)})
        print(json.dumps(rows[-1]), flush=True)
    for key in ("nobias_per_pdl", "nobias_per_plain", "plain_per_pdl"):
        vals = [r[key] for r in rows]
        print(f"{key}: geometric mean {statistics.geometric_mean(vals):.3f}, min {min(vals):.3f}", flush=True)
    return rows


def resnet():
    torch.backends.cudnn.benchmark = True
    base, source = resnet50()
    base = base.cuda().to(memory_format=CL)
    xh = torch.randn(32, 3, 224, 224, device="cuda").half().contiguous(memory_format=CL)
    with torch.no_grad():
        folded = cnn.fold_batchnorm(copy.deepcopy(base).half().eval()).to(memory_format=CL)
        q = cnn.fold_batchnorm(copy.deepcopy(base).half().eval())
        cnn.quantize_model(q, "w8a8-int8-static", calibration=cnn.calibrate(q, [xh]))
        chained, _ = cnn.chain_int8(q)
        graphs = [graph_of(lambda: chained(xh), 2, True), graph_of(lambda: chained(xh), 2, False),
                  graph_of(lambda: folded(xh), 2, True)]
        on, off, f16 = (t / 2e3 for t in alternate(graphs, rounds=11))
    row = {"resnet_source": source, "chain_pdl_ms": round(on, 4), "chain_plain_ms": round(off, 4),
           "f16_folded_ms": round(f16, 4), "f16_per_pdl": round(f16 / on, 3), "f16_per_plain": round(f16 / off, 3),
           "plain_per_pdl": round(off / on, 3)}
    print(json.dumps(row), flush=True)
    return row


if __name__ == "__main__":
    out = {"layers": layers, "resnet": resnet}[sys.argv[1]]()
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            json.dump(out, f, indent=1)
