"""CPU: when the per-block layers' eager decode call (ops/block_linear.py) declines without touching the extension:
CPU tensors, tensor subclasses and fake tensors (what torch.compile traces), and a process with the fast path off;
and the layers still answer through their Python path (CPU references). The GPU side:
tests/test_block_linear_fast_gpu.py."""
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from cutlass_gemm.nn import Fp8BlockLinear, Int8BlockLinear
from cutlass_gemm.ops import block_linear


class _Refuses:
    """An extension stand-in whose every call fails the test: the declines must not reach it."""

    def block_linear_fast(self, *args):
        raise AssertionError("the extension was called")


def _args(x):
    w = torch.zeros(8, x.shape[-1], dtype=torch.int8)
    return x, w, torch.ones(8, x.shape[-1] // 128), None, torch.bfloat16, "none", 128, False


def test_declines_cpu_subclass_and_fake_tensors_without_the_extension(monkeypatch):
    monkeypatch.setattr(block_linear, "_ext", _Refuses())
    x = torch.randn(4, 256)
    assert block_linear.block_linear_fast(*_args(x)) is None  # CPU
    assert block_linear.block_linear_fast(*_args(torch.nn.Parameter(x))) is None  # a subclass
    with FakeTensorMode():
        fake = torch.empty(4, 256)
        assert block_linear.block_linear_fast(*_args(fake)) is None


def test_fast_path_off_declines(monkeypatch):
    monkeypatch.setattr(block_linear, "_ext", False)  # what CUTLASS_GEMM_FAST_PATH=0 (or no extension) leaves
    assert block_linear.block_linear_fast(*_args(torch.randn(2, 256))) is None


@pytest.mark.parametrize("cls", [Fp8BlockLinear, Int8BlockLinear])
def test_layers_serve_a_strided_last_dimension_like_a_copy(cls, monkeypatch):
    monkeypatch.setattr(block_linear, "_ext", _Refuses())
    torch.manual_seed(0)
    lin = torch.nn.Linear(256, 24).bfloat16()
    layer = cls.from_float(lin)
    wide = torch.randn(3, 512, dtype=torch.bfloat16)
    x = wide[:, ::2]
    assert x.stride(-1) == 2
    assert torch.equal(layer(x), layer(x.contiguous()))
