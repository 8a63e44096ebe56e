"""Session 55 probe (H200): the eager cost of `WeightOnlyConv2d`'s 1x1 GEMM layers. ResNet-50 (channels_last, fp16)
under w4a16 / w8a16, eager wall clock per forward at batch 1 and 8, with the layer's new channels_last shortcut (the
linear layer on the (N, H, W, Ci) view, two view ops) against its previous forward (to_rows / from_rows, four), in
alternating repetitions in one process, fp16 cuDNN beside them; outputs compared bit for bit. Writes gemm_rows.json /
.md under argv[1]."""
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
from cutlass_gemm.nn import conv as nn_conv  # noqa: E402
from cutlass_gemm.ops.conv import from_rows, to_rows  # noqa: E402
from resnet50 import resnet50  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
torch.backends.cudnn.benchmark = True
CL = torch.channels_last
new_forward = nn_conv.WeightOnlyConv2d.forward


def old_forward(self, x):
    if self.is_gemm:
        r = to_rows(x, self.in_channels)
        return from_rows(self.linear(r.rows), r)
    return new_forward(self, x)


def wall_ms(model, x, calls=20):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        model(x)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / calls


base, source = resnet50()
base = base.cuda().to(memory_format=CL).eval().half()
models = {"fp16": base}
for scheme in ("w4a16", "w8a16"):
    q = copy.deepcopy(base)
    cnn.quantize_model(q, scheme)
    models[scheme] = q
rows = []
with torch.no_grad():
    for batch in (1, 8):
        x = torch.randn(batch, 3, 224, 224, device="cuda").half().contiguous(memory_format=CL)
        same = {}
        for scheme in ("w4a16", "w8a16"):
            y_new = models[scheme](x)
            nn_conv.WeightOnlyConv2d.forward = old_forward
            y_old = models[scheme](x)
            nn_conv.WeightOnlyConv2d.forward = new_forward
            same[scheme] = bool(torch.equal(y_new, y_old))
        forms = ("fp16", "w4a16 new", "w4a16 old", "w8a16 new", "w8a16 old")
        times = {f: [] for f in forms}
        for rep in range(8):
            for f in forms:
                nn_conv.WeightOnlyConv2d.forward = old_forward if f.endswith("old") else new_forward
                t = wall_ms(models[f.split()[0]], x)
                if rep:  # the first round warms up
                    times[f].append(t)
            nn_conv.WeightOnlyConv2d.forward = new_forward
        row = {"batch": batch, **{f"{f} ms": round(statistics.median(v), 3) for f, v in times.items()},
               "w4a16 equal": same["w4a16"], "w8a16 equal": same["w8a16"]}
        for s in ("w4a16", "w8a16"):
            row[f"{s} old / new"] = round(row[f"{s} old ms"] / row[f"{s} new ms"], 3)
            row[f"fp16 / {s} new"] = round(row["fp16 ms"] / row[f"{s} new ms"], 3)
        rows.append(row)
        print(row, flush=True)
(out / "gemm_rows.json").write_text(json.dumps({"source": source, "rows": rows}, indent=1))
(out / "gemm_rows.md").write_text("\n".join(md_table(list(rows[0]), [list(r.values()) for r in rows])) + "\n")
