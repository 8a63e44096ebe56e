"""Session 56 probe (H200): torch.profiler over eager ResNet-50 forwards (torchvision, random weights, fp16,
channels_last), fp16 cuDNN against w4a16 / w8a16 at batch 32 and w4a16 at batch 1: the host-side calls by self CPU
time (launches, allocations, synchronizations, cuDNN) to find what makes the weight-only layers' eager calls cost
more host time at batch 32 (probe/eager_host.py, call 4). Writes profile_fw.md under argv[1]."""
import copy
import sys
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, "tools")
import cutlass_gemm.nn as cnn  # noqa: E402
from resnet50 import resnet50  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
torch.backends.cudnn.benchmark = True
CL = torch.channels_last
base, source = resnet50()
base = base.cuda().to(memory_format=CL).eval().half()
models = {"fp16": base}
for scheme in ("w4a16", "w8a16"):
    q = copy.deepcopy(base)
    cnn.quantize_model(q, scheme)
    models[scheme] = q
lines = []
with torch.no_grad():
    for batch, names in ((32, ("fp16", "w4a16", "w8a16")), (1, ("w4a16",))):
        x = torch.randn(batch, 3, 224, 224, device="cuda").half().contiguous(memory_format=CL)
        for name in names:
            model = models[name]
            for _ in range(5):
                model(x)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for _ in range(5):
                    model(x)
                torch.cuda.synchronize()
            table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=30, max_name_column_width=60)
            lines += [f"## {name}, batch {batch}: 5 forwards, by self CPU time", "", "```", table, "```", ""]
(out / "profile_fw.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
