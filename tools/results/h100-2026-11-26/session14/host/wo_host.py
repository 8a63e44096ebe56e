"""Session 14: host cost of the weight-only layer on its mixed-input copy (M >= 17 on SM90), one process.

    python3 wo_host.py OUT

Per (M, N, K, bits): eager wall clock per call (bench_common.wall_time_us: back-to-back calls, host included),
device time (gpu_time_us: events behind a GPU sleep), for the layer (eager path: one check, no dispatcher) and
the op through the dispatcher (what every eager call took before), bf16 F.linear beside; then cProfile of
300 layer calls at 32 x 8192 x 8192 int4 (where the host time goes).
"""
import cProfile
import io
import json
import pstats
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[5]
sys.path.insert(0, str(ROOT / "tools"))
from bench_common import gpu_time_us, stamp, wall_time_us  # noqa: E402

from cutlass_gemm.nn import WeightOnlyLinear  # noqa: E402
from cutlass_gemm.ops.weight_only import weight_only_backend  # noqa: E402
from cutlass_gemm.quant.prepack import LAYOUT_MIXED  # noqa: E402

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
rows = []
for m, n, k, bits in ((32, 8192, 8192, 4), (64, 8192, 8192, 4), (64, 4096, 14336, 4), (256, 8192, 8192, 4),
                      (32, 8192, 8192, 8), (2048, 8192, 8192, 4)):
    torch.manual_seed(0)
    lin = torch.nn.Linear(k, n, bias=False).to("cuda", torch.bfloat16)
    lay = WeightOnlyLinear.from_float(lin, bits=bits, group_size=128 if bits == 4 else None)
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    w = lin.weight.detach()
    op = lambda: torch.ops.cutlass_gemm.weight_only_mm(  # noqa: E731
        x, lay.qweight_mixed, lay.scales_mixed, lay.zeros_mixed, None, None, layout=LAYOUT_MIXED, bits=bits,
        group_size=lay.group_size or 0, n=n)
    assert torch.equal(op(), lay(x))
    for name, fn in (("layer", lambda: lay(x)), ("op via dispatcher", op), ("bf16 F.linear", lambda: F.linear(x, w))):
        r = {"m": m, "n": n, "k": k, "bits": bits, "impl": name, "backend": weight_only_backend(m, lay.packed, lay.packed_mixed),
             "wall_us": round(wall_time_us(fn, calls=300, reps=5), 2), "device_us": round(gpu_time_us(fn), 2)}
        rows.append(r)
        print(r, flush=True)
lin = torch.nn.Linear(8192, 8192, bias=False).to("cuda", torch.bfloat16)
lay = WeightOnlyLinear.from_float(lin, bits=4, group_size=128)
x = torch.randn(32, 8192, device="cuda", dtype=torch.bfloat16)
for _ in range(20):
    lay(x)
torch.cuda.synchronize()
prof = cProfile.Profile()
prof.enable()
for _ in range(300):
    lay(x)
prof.disable()
torch.cuda.synchronize()
s = io.StringIO()
pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(25)
(out / "wo_host_profile.txt").write_text(s.getvalue())
(out / "wo_host.json").write_text(json.dumps({"stamp": stamp(), "rows": rows}, indent=1))
print(s.getvalue()[:3000])
