#!/usr/bin/env python3
"""Session 65 probe: the quantized layers under torch.compile since each layer's call is one op
(`cutlass_gemm::w8a8_linear`, `block_linear`, `weight_only_layer`), against the composition the layers traced before
(the quantize and GEMM ops with the rows, tile padding and weight copy decided at trace time), and eager.

Per scheme (one layer, N x K) and M, arms:
  eager        the layer called eagerly (the C++ one-call paths)
  new_static   torch.compile(layer, fullgraph=True, dynamic=False): one graph per M
  old_static   the same compile of what the layer's forward traced before session 65 (`_composed` / `_run` of the
               ops modules run at trace time on the concrete M)
  new_dynamic  torch.compile(layer, fullgraph=True, dynamic=True): one graph with a symbolic M for every M > 1
Device time: CUDA graphs of 20 calls (bench_common.graph_time_us, median of 7 replays); wall clock: 100 back-to-back
calls, median of 5 (host included). Every arm's output compared with eager's (max abs difference / max |eager|).
Dynamo's graph count per arm family is recorded.

    python compiled_layers.py OUT.json N K M1,M2,...
"""
import json
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[4]
sys.path[:0] = [str(ROOT), str(ROOT / "tools")]

import torch  # noqa: E402
from torch import nn  # noqa: E402

import cutlass_gemm.nn as cnn  # noqa: E402
from bench_common import graph_time_us, wall_time_us  # noqa: E402
from cutlass_gemm.ops import block_linear as bl, linear as lin_ops, wo_layer  # noqa: E402

SCHEMES = ("w8a8-int8", "w8a8-fp8", "fp8-block128", "w8a8-int8-block128", "w4a16")


def layer_for(scheme, n, k):
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(k, n, bias=True)).to(torch.bfloat16)
    cnn.quantize_model(model, scheme)
    return model[0].cuda()


def old_forward(layer):
    """What the layer's forward traced before session 65, as a function of x (decisions on x's concrete rows)."""
    b = layer._buffers
    if isinstance(layer, (cnn.Int8Linear, cnn.Fp8Linear)):
        w, ws, bias = b["weight"], b["weight_scale"], b["bias"]

        def f(x):
            k = x.shape[-1]
            x2 = x.reshape(-1, k)
            m = x2.shape[0]
            rows = lin_ops._rows_to_run(x.device.index or 0, m, w.shape[0], k, w.dtype, "none")
            out = lin_ops._composed(x2, w.t(), ws, bias, "dynamic", None, None, None, torch.bfloat16, w.dtype, None,
                                    rows if rows > m else 0)
            return out[:m].reshape(*x.shape[:-1], w.shape[0])
        return f
    if isinstance(layer, (cnn.Int8BlockLinear, cnn.Fp8BlockLinear)):
        fp8 = isinstance(layer, cnn.Fp8BlockLinear)
        block = 128 if fp8 else layer.block_size
        return lambda x: bl._composed(x, b["weight"], b["weight_scale"], b["bias"], torch.bfloat16, "none", block, fp8)
    names = ("qweight", "scales", "zeros", "bias", "perm", "qweight_mixed", "scales_mixed", "zeros_mixed",
             "qweight_upcast", "scales_upcast")
    state = [b.get(nm) for nm in names]
    return lambda x: wo_layer._run(x, *state, layer.bits, layer.group_size, layer.out_features, layer.dtype)


def compiled(fn, dynamic):
    return torch.compile(fn, fullgraph=True, dynamic=dynamic)


def main(out_path, n, k, ms):
    torch._dynamo.config.recompile_limit = 256
    torch._dynamo.config.accumulated_recompile_limit = 4096
    rows, t0 = [], time.perf_counter()
    layers = {s: layer_for(s, n, k) for s in SCHEMES}
    xs = {m: torch.randn(m, k, device="cuda", dtype=torch.bfloat16) for m in ms}
    # first uses build the kernels: in parallel threads (the loader builds outside its lock), then once more in turn
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda sm: _try(lambda: layers[sm[0]](xs[sm[1]])), [(s, m) for s in SCHEMES for m in ms]))
    torch.cuda.synchronize()
    print(f"warm at {time.perf_counter() - t0:.0f} s", flush=True)
    for s in SCHEMES:
        layer = layers[s]
        old = old_forward(layer)
        dyn = compiled(lambda x, _l=layer: _l(x), True)
        for m in ms:
            x = xs[m]
            with torch.no_grad():
                want = layer(x)
                arms = {"eager": lambda: layer(x),
                        "new_static": _bind(compiled(lambda x, _l=layer: _l(x), False), x),
                        "old_static": _bind(compiled(old, False), x),
                        "new_dynamic": _bind(dyn, x)}
                row = {"scheme": s, "m": m, "n": n, "k": k}
                for name, fn in arms.items():
                    y = fn()
                    row[f"{name}_diff"] = float((y.float() - want.float()).abs().max() / want.float().abs().max())
                    row[f"{name}_dev_us"] = graph_time_us(fn)
                    row[f"{name}_wall_us"] = wall_time_us(fn, calls=100, reps=5)
            rows.append(row)
            print(json.dumps(row), flush=True)
    counters = torch._dynamo.utils.counters
    json.dump({"rows": rows, "graphs": counters["stats"]["unique_graphs"], "seconds": time.perf_counter() - t0,
               "device": torch.cuda.get_device_name(), "torch": torch.__version__}, open(out_path, "w"), indent=1)
    print(f"done in {time.perf_counter() - t0:.0f} s, graphs {counters['stats']['unique_graphs']}")


def _bind(fn, x):
    return lambda: fn(x)


def _try(fn):
    try:
        return fn()
    except Exception as exc:  # the sequential pass raises it again where it matters
        print("warm-up:", type(exc).__name__, str(exc)[:200], flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), [int(v) for v in sys.argv[4].split(",")])
