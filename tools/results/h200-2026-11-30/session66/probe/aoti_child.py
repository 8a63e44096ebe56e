#!/usr/bin/env python3
"""Session 66 probe: does an AOTInductor CUDA package load and run here at all? `plain`: nn.Linear + ReLU only (no
cutlass_gemm op); `layers`: the three layer ops (tests/test_compile_first.py aoti_layers). Run each in its own
process (a crash ends only that one):  python aoti_child.py plain|layers OUT_DIR"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
import torch  # noqa: E402
from torch import nn  # noqa: E402

what, out = sys.argv[1], Path(sys.argv[2])
if what == "plain":
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU()).to(torch.bfloat16).cuda()
    ep = torch.export.export(model, (torch.randn(8, 256, dtype=torch.bfloat16, device="cuda"),),
                             dynamic_shapes=({0: torch.export.Dim("batch", min=1, max=4096)},))
    path = torch._inductor.aoti_compile_and_package(ep, package_path=str(out / "plain.pt2"))
    print("compiled", flush=True)
    run = torch._inductor.aoti_load_package(path)
    print("loaded", flush=True)
    x = torch.randn(37, 256, dtype=torch.bfloat16, device="cuda")
    print("max diff", float((run(x) - model(x)).abs().max()), flush=True)
else:
    from test_compile_first import aoti_layers
    aoti_layers("cuda", lambda g, w: float((g.double() - w.double()).abs().max()) <= 1e-3 * float(w.abs().max()), out)
    print("layers ok", flush=True)
