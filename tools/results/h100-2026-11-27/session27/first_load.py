"""Does a kernel's first use wait for other streams? In a fresh process, with the kernel already in the cache:
queue a ~0.1 s sleep on a side stream, call scaled_mm there, time the host call and check whether the default
stream's snapshot still sees the poison; then the same again with the kernel loaded."""
import json
import sys
import time
from pathlib import Path

import torch

sys.path[:0] = [str(Path(__file__).resolve().parents[4] / "tests")]
from test_ops_gpu import make_problem, run_op  # noqa: E402


def once():
    p = make_problem("scaled_bias", 512, 1024, 1024, torch.bfloat16)
    out = torch.full((512, 1024), float("nan"), dtype=torch.bfloat16, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(200_000_000)
        t0 = time.perf_counter()
        run_op("scaled_bias", p, out)
        host = time.perf_counter() - t0
    snapshot = out.clone()
    torch.cuda.synchronize()
    return {"host_ms": round(host * 1e3, 3), "snapshot_all_poison": bool(torch.isnan(snapshot).all())}


import cutlass_gemm  # noqa: E402,F401
torch.zeros(1, device="cuda")
torch.cuda.synchronize()
print(json.dumps({"first_use": once(), "second_use": once(), "third_use": once()}))
