"""Session 21 call 2 probe: which layer of a chain of dependent layers (Int8Linear dynamic / WeightOnlyLinear int4)
replayed from a CUDA graph (PDL off) differs from the same chain run eagerly (call 1: every output element differed).
Each case captures the chain returning every intermediate and compares them in order with the eager ones."""
import sys

import torch
from torch.overrides import TorchFunctionMode

import cutlass_gemm  # noqa: F401
from cutlass_gemm.nn import Int8Linear, WeightOnlyLinear
from cutlass_gemm.runtime import extension

ext = extension.load()
ext.pdl_set(0)
out = open(sys.argv[1], "w")


def log(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True)
    out.write(s + "\n")


class NoFast(TorchFunctionMode):  # makes ops._eager_direct False: the torch.library op path
    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def layers_of(kinds, width=2048, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    out = []
    for kind in kinds:
        lin = torch.nn.Linear(width, width, device="cuda", dtype=torch.bfloat16)
        with torch.no_grad():
            lin.weight.copy_(torch.randn(width, width, generator=g, device="cuda") / width ** 0.5)
        out.append(Int8Linear.from_float(lin, act="dynamic") if kind == "q" else WeightOnlyLinear.from_float(lin))
    return out


def case(name, kinds, m, pre=None, nofast=False, width=2048):
    layers = layers_of(kinds, width)
    x = torch.randn(m, width, device="cuda").bfloat16()

    def run(x):
        if pre == "mul":
            x = x * 1.0
        outs = []
        for layer in layers:
            x = layer(x)
            outs.append(x)
        return outs

    def go(x):
        if nofast:
            with NoFast():
                return run(x)
        return run(x)
    eager = [t.clone() for t in go(x)]
    eager2 = [t.clone() for t in go(x)]
    det = all(torch.equal(a, b) for a, b in zip(eager, eager2))
    torch.cuda.synchronize()
    sx = x.clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        go(sx)
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        gouts = go(sx)
    graph.replay()
    torch.cuda.synchronize()
    diffs = []
    for i, (a, b) in enumerate(zip(gouts, eager)):
        d = int((a != b).sum())
        rel = float((a.float() - b.float()).norm() / b.float().norm())
        diffs.append(f"{i}:{kinds[i]}:{d}/{b.numel()}:{rel:.2e}")
    log(f"{name} m={m} deterministic={det} | " + " ".join(diffs))


for m in (1, 16):
    for c in [lambda: case("chain q/w", "qwqwqwqw", m),
              lambda: case("chain q/w op path", "qwqwqwqw", m, nofast=True),
              lambda: case("chain q only", "qqqq", m),
              lambda: case("chain w only", "wwww", m),
              lambda: case("q after mul", "q", m, pre="mul"),
              lambda: case("w after mul", "w", m, pre="mul"),
              lambda: case("q then w", "qw", m),
              lambda: case("w then q", "wq", m)]:
        try:
            c()
        except Exception as e:  # noqa: BLE001 - a record, not a test
            log(f"m={m} error {e!r}")
for m in (1, 16):
    for kind in ("w", "q"):
        info = None
        if kind == "w":
            try:
                info = ext.wo_plan_info(m, 2048, 2048, 4, False, True)
            except Exception as e:  # noqa: BLE001 - a record, not a test
                info = repr(e)
        log(f"plan {kind} m={m}: {info}")
out.close()
