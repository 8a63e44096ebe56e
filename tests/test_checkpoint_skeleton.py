"""Loading a quantized checkpoint without the float weights (CPU): a model built on the meta device and passed to
quantize_model becomes the empty quantized skeleton (nothing quantized, no calibration for the static schemes), which
`load_state_dict(state, assign=True)` fills; and a weight-only checkpoint loads into a layer that keeps another
large-M copy than the layer that wrote it (the copy is made from the packed weight, or dropped)."""
import pytest
import torch
from torch import nn

import cutlass_gemm.nn as cnn
from cutlass_gemm.errors import InvalidArgumentError

ALL_SCHEMES = sorted(set(cnn.SCHEMES) | set(cnn.BLOCK_SCHEMES) | set(cnn.WEIGHT_ONLY_SCHEMES))


class Net(nn.Module):
    """Two linear layers, a 1x1 and a 3x3 convolution (converted under the schemes that take convolutions)."""

    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(256, 512), nn.Linear(512, 256)
        self.c1, self.c3 = nn.Conv2d(64, 64, 1), nn.Conv2d(64, 64, 3, padding=1)

    def forward(self, img, x):
        return self.l2(torch.relu(self.l1(x))), self.c3(torch.relu(self.c1(img)))


def quantized_and_skeleton(scheme: str, device="cpu"):
    """(a Net quantized under `scheme` on the CPU and moved to `device`, its state_dict, a meta skeleton quantized
    under `scheme` with that state loaded by assignment, the two reports)."""
    torch.manual_seed(0)
    model = Net().to(torch.bfloat16)
    img, x = torch.randn(2, 64, 8, 8, dtype=torch.bfloat16), torch.randn(16, 256, dtype=torch.bfloat16)
    cals = None
    if scheme.endswith("static"):
        cals = cnn.calibrate(model, [(img, x)], forward=lambda m, b: m(*b),
                             dtype=torch.float8_e4m3fn if "fp8" in scheme else torch.int8)
    report = cnn.quantize_model(model, scheme, calibration=cals)
    state = model.state_dict()
    with torch.device("meta"):
        skeleton = Net().to(torch.bfloat16)
    sk_report = cnn.quantize_model(skeleton, scheme)  # no calibration: the input scales are in the checkpoint
    result = skeleton.load_state_dict({k: v.to(device) for k, v in state.items()}, assign=True)
    assert not result.missing_keys and not result.unexpected_keys, result
    return model.to(device), skeleton, report, sk_report


@pytest.mark.parametrize("scheme", ALL_SCHEMES)
def test_meta_skeleton_loads_a_quantized_checkpoint(scheme):
    model, skeleton, report, sk_report = quantized_and_skeleton(scheme)
    assert sk_report.quantized == report.quantized and sk_report.skipped == report.skipped
    assert not [n for n, t in list(skeleton.named_parameters()) + list(skeleton.named_buffers()) if t.is_meta]
    img, x = torch.randn(3, 64, 7, 7, dtype=torch.bfloat16), torch.randn(5, 256, dtype=torch.bfloat16)
    for got, want in zip(skeleton(img, x), model(img, x)):
        assert torch.equal(got, want), scheme


def test_a_meta_skeleton_quantizes_nothing_and_a_real_model_still_needs_calibration():
    with torch.device("meta"):
        skeleton = Net().to(torch.bfloat16)
    cnn.quantize_model(skeleton, "w8a8-int8-static")
    assert isinstance(skeleton.l1, cnn.Int8Linear) and skeleton.l1.weight.is_meta
    with pytest.raises(InvalidArgumentError) as ei:
        cnn.quantize_model(Net().to(torch.bfloat16), "w8a8-int8-static")
    assert ei.value.argument == "calibration"


CASES = [(4, 128, False), (4, 64, True), (8, None, False)]


@pytest.mark.parametrize("bits,group,zp", CASES)
def test_weight_only_checkpoint_loads_into_another_large_m_backend(bits, group, zp):
    """Every (writer, reader) pair of large-M backends: the reader's buffers equal those of a layer quantized with
    the reader's backend directly, also when the reader is a meta skeleton loaded by assignment."""
    torch.manual_seed(0)
    lin = nn.Linear(256, 128).to(torch.bfloat16)
    backends = ["dequant", "cutlass_mixed"] + (["cutlass_upcast"] if (bits, group, zp) == (8, None, False) else [])
    direct = {b: cnn.WeightOnlyLinear.from_float(lin, bits=bits, group_size=group, zero_point=zp, large_m_backend=b)
              for b in backends}
    for src in backends:
        for dst in backends:
            for device in ("cpu", "meta"):
                reader = cnn.WeightOnlyLinear(256, 128, True, bits=bits, group_size=group, zero_point=zp,
                                              dtype=torch.bfloat16, device=device, large_m_backend=dst)
                result = reader.load_state_dict(direct[src].state_dict(), assign=device == "meta")
                assert not result.missing_keys and not result.unexpected_keys, (src, dst, result)
                got, want = reader.state_dict(), direct[dst].state_dict()
                assert list(got) == list(want), (src, dst)
                assert all(torch.equal(got[k], want[k]) for k in want), (src, dst, device)


@pytest.mark.parametrize("scheme", ALL_SCHEMES)
def test_skeleton_loads_a_safetensors_checkpoint(scheme, tmp_path):
    """The same through a safetensors file (Hugging Face's checkpoint format: it refuses tensors that share memory,
    and stores fp8 / int8 / int32 buffers as they are): bit-equal outputs."""
    st = pytest.importorskip("safetensors.torch")
    model, _, _, _ = quantized_and_skeleton(scheme)
    st.save_file(model.state_dict(), str(tmp_path / "model.safetensors"))
    with torch.device("meta"):
        skeleton = Net().to(torch.bfloat16)
    cnn.quantize_model(skeleton, scheme)
    skeleton.load_state_dict(st.load_file(str(tmp_path / "model.safetensors")), assign=True)
    img, x = torch.randn(3, 64, 7, 7, dtype=torch.bfloat16), torch.randn(5, 256, dtype=torch.bfloat16)
    for got, want in zip(skeleton(img, x), model(img, x)):
        assert torch.equal(got, want), scheme
