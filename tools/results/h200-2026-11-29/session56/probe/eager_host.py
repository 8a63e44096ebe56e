"""Session 56 probe (H200): where the eager ResNet-50 forward spends host time. ResNet-50 (torchvision, random weights,
channels_last, fp16) as fp16 cuDNN and under w4a16 / w8a16, at batch 1 and 32:
- wall clock per forward (synchronized at the end of 20 forwards) and host time per forward (the Python call returns
  before the GPU finishes; measured over single forwards, each started on an idle GPU, so the launch queue never
  blocks the host);
- host time inside each leaf module's forward, by kind (fp16 conv, BN, ReLU, weight-only conv by its route: 1x1 GEMM
  layer, k x k on the implicit-GEMM kernel, k x k on the dequantize + cuDNN route) from forward pre/post hooks on a
  separate set of forwards (the hooks' own cost is in those figures, the same for every kind).
Writes eager_host.json / .md under argv[1]."""
import collections
import copy
import json
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, "tools")
import cutlass_gemm.nn as cnn  # noqa: E402
from bench_common import md_table  # noqa: E402
from resnet50 import resnet50  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
torch.backends.cudnn.benchmark = True
CL = torch.channels_last


def wall_ms(model, x, calls=20):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        model(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / calls


def host_ms(model, x, calls=20):
    times = []
    for _ in range(calls):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        model(x)
        times.append(time.perf_counter() - t0)
    torch.cuda.synchronize()
    return statistics.median(times) * 1e3


def kind(module, x):
    name = type(module).__name__
    if name == "WeightOnlyConv2d":
        if module.is_gemm:
            return "wo 1x1 GEMM layer"
        from cutlass_gemm.ops.conv_wo import DEQUANT_CUDNN, _layer_plan
        b, c, h, w = x.shape
        lin = module.linear
        plan = _layer_plan(b, c, h, w, module.out_channels, lin.qweight.shape[1] // lin.bits, module.geometry)
        return {DEQUANT_CUDNN: "wo k x k dequant+cuDNN", 0: "wo k x k op"}.get(plan, "wo k x k kernel")
    if name == "Conv2d":
        return f"fp16 conv {'1x1' if module.kernel_size == (1, 1) else 'k x k'}"
    return name


def per_module(model, x, calls=10):
    acc = collections.defaultdict(list)
    start = {}
    hooks = []

    def post(m, a, o):
        t = time.perf_counter() - start[id(m)]  # read first: kind() below is the probe's own cost
        acc[kind(m, a[0])].append(t)

    inner = {id(c) for m in model.modules() if type(m).__name__ == "WeightOnlyConv2d" for c in m.children()}
    for mod in model.modules():
        # leaves, and the weight-only convs themselves (their linear child is not a module call of their own)
        if (len(list(mod.children())) == 0 and id(mod) not in inner) or type(mod).__name__ == "WeightOnlyConv2d":
            hooks.append(mod.register_forward_pre_hook(lambda m, a: start.__setitem__(id(m), time.perf_counter())))
            hooks.append(mod.register_forward_hook(post))
    for _ in range(calls):
        torch.cuda.synchronize()
        model(x)
    torch.cuda.synchronize()
    for h in hooks:
        h.remove()
    per_call = {k: (statistics.median(v) * 1e6, len(v) // calls, sum(v) * 1e3 / calls) for k, v in acc.items()}
    return per_call


base, source = resnet50()
base = base.cuda().to(memory_format=CL).eval().half()
models = {"fp16": base}
for scheme in ("w4a16", "w8a16"):
    q = copy.deepcopy(base)
    cnn.quantize_model(q, scheme)
    models[scheme] = q
result = {"source": source, "rows": [], "modules": []}
with torch.no_grad():
    for batch in (1, 32):
        x = torch.randn(batch, 3, 224, 224, device="cuda").half().contiguous(memory_format=CL)
        for name, model in models.items():
            for _ in range(3):
                model(x)
        for rep in range(2):
            for name, model in models.items():
                result["rows"].append(dict(batch=batch, model=name, rep=rep, wall_ms=wall_ms(model, x),
                                           host_ms=host_ms(model, x)))
        for name, model in models.items():
            for k, (med_us, count, total_ms) in sorted(per_module(model, x).items()):
                result["modules"].append(dict(batch=batch, model=name, kind=k, calls=count, median_us=med_us,
                                              total_ms=total_ms))
(out / "eager_host.json").write_text(json.dumps(result, indent=1))
lines = [f"ResNet-50 ({source}), fp16 channels_last, eager, H200; wall = 20 forwards synchronized at the end, host = "
         "median of single forwards from an idle GPU (ms):", ""]
lines += md_table(["batch", "model", "rep", "wall ms", "host ms"],
                  [[r["batch"], r["model"], r["rep"], f"{r['wall_ms']:.2f}", f"{r['host_ms']:.2f}"]
                   for r in result["rows"]])
lines += ["", "Host time inside leaf modules (hooks), per forward:", ""]
lines += md_table(["batch", "model", "kind", "calls", "median us/call", "total ms"],
                  [[m["batch"], m["model"], m["kind"], m["calls"], f"{m['median_us']:.1f}", f"{m['total_ms']:.2f}"]
                   for m in result["modules"]])
(out / "eager_host.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
