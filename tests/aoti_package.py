"""Child process of tests/test_compile_first_gpu.py's AOTInductor test: a crash in AOTInductor's package loader ends
only this process. First a package of plain torch layers (is AOTInductor's loader usable in this torch build at all?),
then the package of the three cutlass_gemm layer ops (test_compile_first.aoti_layers). One JSON line per step.

    python tests/aoti_package.py DEVICE OUT_DIR
"""
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
from torch import nn  # noqa: E402


def plain(device: str, out: Path) -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 512), nn.ReLU()).to(torch.bfloat16).to(device)
    ep = torch.export.export(model, (torch.randn(8, 256, dtype=torch.bfloat16, device=device),),
                             dynamic_shapes=({0: torch.export.Dim("batch", min=1, max=4096)},))
    run = torch._inductor.aoti_load_package(torch._inductor.aoti_compile_and_package(
        ep, package_path=str(out / "plain.pt2")))
    x = torch.randn(37, 256, dtype=torch.bfloat16, device=device)
    with torch.no_grad():
        assert float((run(x).double() - model(x).double()).abs().max()) <= 1e-2


def close(got, want) -> bool:
    g, w = got.double(), want.double()
    return bool(torch.isfinite(g).all()) and float((g - w).abs().max()) <= 1e-3 * max(float(w.abs().max()), 1e-30)


if __name__ == "__main__":
    device, out = sys.argv[1], Path(sys.argv[2])
    plain(device, out)
    print(json.dumps({"step": "plain", "ok": True}), flush=True)
    from test_compile_first import aoti_layers
    aoti_layers(device, close, out)
    print(json.dumps({"step": "layers", "ok": True}), flush=True)
