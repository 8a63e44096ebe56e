"""GPU: the library on the second of two GPUs in one process, the first staying current (tests/multi_gpu.py, a child
process): every quantize_model scheme's layers eager, on a side stream, compiled and in a CUDA graph on cuda:1, a
model split over both GPUs, and the public ops on cuda:1 tensors, each output equal to its cuda:0 twin's (within 1e-3
of the norm; integer and fp8 outputs bit for bit) and on cuda:1. tools/gpu_suite.py pins each test process to one
GPU and names them all in CUTLASS_GEMM_ALL_GPUS, which the child sees; skipped with fewer than two GPUs. Run with
`pytest -m gpu`."""
import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.gpu
HERE = os.path.dirname(os.path.abspath(__file__))


def _visible() -> str:
    """The GPUs the child sees: the suite's whole list, else this process's."""
    import torch
    listed = os.environ.get("CUTLASS_GEMM_ALL_GPUS", "")
    if len([g for g in listed.split(",") if g.strip()]) >= 2:
        return listed
    if torch.cuda.device_count() >= 2:
        return os.environ.get("CUDA_VISIBLE_DEVICES", ",".join(str(i) for i in range(torch.cuda.device_count())))
    pytest.skip("needs two visible GPUs")


def test_layers_and_ops_on_the_second_gpu_match_the_first():
    root = os.path.dirname(HERE)
    env = dict(os.environ, CUDA_VISIBLE_DEVICES=_visible(),
               PYTHONPATH=os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH", "")) if p))
    proc = subprocess.run([sys.executable, os.path.join(HERE, "multi_gpu.py")], env=env, capture_output=True,
                          text=True, timeout=1500)
    assert proc.returncode == 0, proc.stderr[-4000:]
    rows = json.loads(proc.stdout.strip().splitlines()[-1])["results"]
    for r in rows:
        print(r)
    count = {c: sum(r["check"] == c for r in rows) for c in {r["check"] for r in rows}}
    # 12 outputs (9 schemes, 3 with convolutions) x 4 calls; the graph replays the two calls of its shapes; the split
    # model 2 schemes x 2 sizes; the 12 ops at 2 sizes, each output compared
    assert {c: count.get(c) for c in ("net", "stream", "compiled", "graph", "split")} == {
        "net": 48, "stream": 48, "compiled": 48, "graph": 24, "split": 4}, count
    assert set(count) == {"net", "stream", "compiled", "graph", "split", "ops"} and count["ops"] >= 24, count
    assert not [r for r in rows if not r["ok"]], [r for r in rows if not r["ok"]][:5]
    assert all(r["device"] == "cuda:1" for r in rows), {r["device"] for r in rows}
