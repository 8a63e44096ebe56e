#!/usr/bin/env python3
"""Session 66 probe: where the host time of a compiled quantized layer goes, and whether a graph with a symbolic
batch really runs slower on the GPU than a static one (session 65 read 3-10% at 2048 rows, arms timed in sequence).

Part "host" (N = K = 4096, M = 1 and 16; wall clock of 200 back-to-back calls, median of 5, us):
  eager            the layer called eagerly
  op               the layer's registered op called directly (W8A8 only: torch.ops.cutlass_gemm.w8a8_linear)
  compiled         torch.compile(layer, fullgraph=True): one graph of one op
  compiled_stub    the same with the op's implementation replaced by a preallocated output (no kernel at all):
                   what compile's wrappers and the dispatcher cost by themselves
  trivial          torch.compile of a module returning x + 1 (one Inductor kernel): PyTorch's floor for a graph
  model8 eager / compiled: 8 layers in nn.Sequential, per layer (the per-graph cost paid once)
  bf16 model8 eager / compiled: the same with nn.Linear
  cProfile of 300 compiled one-layer calls (top cumulative entries) in OUT/profile_<scheme>.txt
Part "symbolic" (8192 x 8192, M = 1024 and 2048): device time from CUDA graphs (bench_common.graph_time_us) of
  eager, static graph, dynamic=True graph, and a graph with the batch marked dynamic, the arms alternated in 5 rounds;
  torch.profiler's CUDA kernels of one call of each arm in OUT/kernels_<scheme>_<m>.txt.

    python compiled_host.py OUT_DIR [host|symbolic|all]
"""
import cProfile
import io
import json
import pstats
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[4]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

import torch  # noqa: E402
from torch import nn  # noqa: E402

import cutlass_gemm.nn as cnn  # noqa: E402
from bench_common import graph_time_us, wall_time_us  # noqa: E402
from cutlass_gemm.ops import block_linear as bl, linear as lin_ops, wo_layer  # noqa: E402

import os  # noqa: E402
DEV = os.environ.get("PROBE_DEVICE", "cuda")  # "cpu": a smoke run of the script's logic, no timing meaning
HOST_SCHEMES = ("w8a8-int8", "w8a8-fp8", "w4a16", "fp8-block128")
SYM_SCHEMES = ("w8a8-int8", "w4a16", "fp8-block128")


def model_for(scheme, n, k, layers=1):
    torch.manual_seed(0)
    model = nn.Sequential(*[nn.Linear(k, n, bias=True) for _ in range(layers)]).to(torch.bfloat16)
    if scheme != "bf16":
        cnn.quantize_model(model, scheme)
    return model.to(DEV)


def fresh(fn, **kw):
    torch._dynamo.reset()
    return torch.compile(fn, fullgraph=True, **kw)


def host(out):
    rows = []
    n = k = int(os.environ.get("PROBE_NK", 4096))
    trivial_mod = nn.Identity()
    trivial = fresh(lambda x: trivial_mod(x) + 1)
    for scheme in HOST_SCHEMES:
        one = model_for(scheme, n, k)
        eight = model_for(scheme, n, k, 8)
        layer = one[0]
        for m in (1, 16):
            x = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
            row = {"scheme": scheme, "m": m}
            with torch.no_grad():
                want = layer(x)
                row["eager"] = wall_time_us(lambda: layer(x))
                if scheme.startswith("w8a8"):
                    b = layer._buffers
                    args = (x, b["weight"], b["weight_scale"], b["bias"], "dynamic", None, None, None,
                            torch.bfloat16, "none")
                    op = torch.ops.cutlass_gemm.w8a8_linear.default
                    row["op"] = wall_time_us(lambda: op(*args))
                c = fresh(layer)
                c(x)
                row["compiled"] = wall_time_us(lambda: c(x))
                row["compiled_diff"] = float((c(x).float() - want.float()).abs().max())
                if m == 16:
                    prof = cProfile.Profile()
                    prof.enable()
                    for _ in range(300):
                        c(x)
                    torch.cuda.synchronize()
                    prof.disable()
                    text = io.StringIO()
                    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(45)
                    (out / f"profile_{scheme}.txt").write_text(text.getvalue())
                # the op's implementation replaced by a ready output: compile's wrappers and the dispatcher alone
                saved = {mod: mod._run if hasattr(mod, "_run") else None for mod in (lin_ops, wo_layer)}
                saved_bl = bl.block_linear_fast
                ready = want.clone()
                lin_ops._run = lambda *a: ready
                wo_layer._run = lambda *a: ready
                bl.block_linear_fast = lambda *a: ready  # the registered _impl looks it up when it runs
                try:
                    cs = fresh(layer)
                    cs(x)
                    row["compiled_stub"] = wall_time_us(lambda: cs(x))
                finally:
                    lin_ops._run, wo_layer._run, bl.block_linear_fast = saved[lin_ops], saved[wo_layer], saved_bl
                row["trivial"] = wall_time_us(lambda: trivial(x))
                want8 = eight(x)
                row["model8_eager_per_layer"] = wall_time_us(lambda: eight(x)) / 8
                c8 = fresh(eight)
                c8(x)
                row["model8_compiled_per_layer"] = wall_time_us(lambda: c8(x)) / 8
                row["model8_diff"] = float((c8(x).float() - want8.float()).abs().max() / want8.float().abs().max())
                row["model8_eager_dev_per_layer"] = graph_time_us(lambda: eight(x)) / 8
            rows.append(row)
            print(json.dumps(row), flush=True)
    bf = model_for("bf16", n, k, 8)
    for m in (1, 16):
        x = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
        with torch.no_grad():
            c8 = fresh(bf)
            c8(x)
            row = {"scheme": "bf16", "m": m, "model8_eager_per_layer": wall_time_us(lambda: bf(x)) / 8,
                   "model8_compiled_per_layer": wall_time_us(lambda: c8(x)) / 8,
                   "model8_eager_dev_per_layer": graph_time_us(lambda: bf(x)) / 8}
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def kernels_of(fn, path):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    evs = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    lines = [f"{e.device_time:9.1f} us  {e.name[:160]}" for e in evs]
    path.write_text("\n".join(lines) + "\n")
    return len(evs), sum(e.device_time for e in evs)


def symbolic(out):
    rows = []
    n = k = int(os.environ.get("PROBE_NK", 8192))
    torch._dynamo.config.recompile_limit = 64
    for scheme in SYM_SCHEMES:
        layer = model_for(scheme, n, k)[0]
        for m in (1024, 2048):
            x = torch.randn(m, k, device=DEV, dtype=torch.bfloat16)
            xm = x.clone()
            torch._dynamo.mark_dynamic(xm, 0)
            with torch.no_grad():
                want = layer(x)
                st = fresh(layer, dynamic=False)
                dy = torch.compile(layer, fullgraph=True, dynamic=True)
                mk = torch.compile(layer, fullgraph=True)
                arms = {"eager": lambda: layer(x), "static": lambda: st(x), "dynamic": lambda: dy(x),
                        "marked": lambda: mk(xm)}
                row = {"scheme": scheme, "m": m}
                for name, fn in arms.items():
                    y = fn()
                    row[f"{name}_diff"] = float((y.float() - want.float()).abs().max())
                    cnt, tot = kernels_of(fn, out / f"kernels_{scheme}_{m}_{name}.txt")
                    row[f"{name}_kernels"] = cnt
                    row[f"{name}_profiled_us"] = tot
                times = {a: [] for a in arms}
                for _ in range(5):
                    for name, fn in arms.items():
                        times[name].append(graph_time_us(fn))
                for name in arms:
                    row[f"{name}_dev_us"] = statistics.median(times[name])
                    row[f"{name}_all"] = [round(v, 1) for v in times[name]]
            rows.append(row)
            print(json.dumps(row), flush=True)
    return rows


def main():
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    what = sys.argv[2] if len(sys.argv) > 2 else "all"
    t0 = time.perf_counter()
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    if what in ("host", "all"):
        result["host"] = host(out)
    if what in ("symbolic", "all"):
        result["symbolic"] = symbolic(out)
    result["seconds"] = time.perf_counter() - t0
    (out / f"compiled_host_{what}.json").write_text(json.dumps(result, indent=1))
    print(f"done in {result['seconds']:.0f} s")


if __name__ == "__main__":
    main()
