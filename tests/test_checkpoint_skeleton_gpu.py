"""GPU: a quantized checkpoint loaded into a meta skeleton (tests/test_checkpoint_skeleton.py) runs on the GPU as the
model it came from, under every scheme; and a weight-only checkpoint written without the SM90 mixed-input copy (as a
CPU-only or non-SM90 machine quantizes) loads into the skeleton an SM90 machine builds, which keeps that copy: the copy
is made at load time and the large-M calls run on it. Run with `pytest -m gpu`."""
import pytest
import torch
from torch import nn

import cutlass_gemm.nn as cnn
from test_checkpoint_skeleton import ALL_SCHEMES, quantized_and_skeleton

pytestmark = pytest.mark.gpu


def _close(got, want) -> bool:
    g, w = got.double(), want.double()
    return bool(torch.isfinite(g).all()) and float((g - w).norm() / w.norm().clamp_min(1e-30)) <= 1e-3


@pytest.mark.parametrize("scheme", ALL_SCHEMES)
def test_meta_skeleton_runs_on_the_gpu_as_the_model_it_came_from(scheme):
    model, skeleton, _, _ = quantized_and_skeleton(scheme)
    model, skeleton = model.cuda(), skeleton.cuda()
    # compile_first.CALLS[1]'s sizes: kernels the suite's record builds
    img = torch.randn(3, 64, 7, 7, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(36, 256, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        for got, want in zip(skeleton(img, x), model(img, x)):
            assert _close(got, want), scheme


def test_checkpoint_without_the_mixed_copy_loads_into_an_sm90_skeleton():
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the mixed-input copy is SM90's")
    torch.manual_seed(0)
    lin = nn.Linear(512, 256).to(torch.bfloat16)  # compile_first's second layer: its kernels at 130 rows
    written = cnn.WeightOnlyLinear.from_float(lin, bits=4, group_size=128, large_m_backend="dequant").state_dict()
    assert "qweight_mixed" not in written
    with torch.device("meta"):
        model = nn.Sequential(nn.Linear(512, 256)).to(torch.bfloat16)
    cnn.quantize_model(model, "w4a16")  # "auto" on this SM90 GPU: the layer keeps the mixed-input copy
    assert model[0].large_m_backend == "cutlass_mixed"
    model.load_state_dict({"0." + k: v for k, v in written.items()}, assign=True)
    model = model.cuda()
    direct = cnn.WeightOnlyLinear.from_float(lin.cuda(), bits=4, group_size=128, large_m_backend="cutlass_mixed")
    for k, v in direct.state_dict().items():
        assert torch.equal(model[0].state_dict()[k], v), k
    x = torch.randn(130, 512, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        assert _close(model(x), direct(x))
