"""Per-tensor scales on per-token / per-channel kernels without copy kernels (CPU side): the SM90 emission gives
the scale broadcast nodes CUTLASS's dynamic stride and the launcher a `scale_flags` argument; SM80 kernels refuse
the flags, and the plan expands the scalar for them instead. The GPU side (results bit for bit those of the
expanded vector, one kernel per call) is tests/test_ops_gpu.py::test_per_tensor_scales_broadcast_in_the_kernel."""
import re

import pytest

from cutlass_gemm.kernels.config import KernelConfig
from cutlass_gemm.kernels.emit import GEMM_LAUNCHER_ABI_VERSION, emit_source, scalar_scales_served
from cutlass_gemm.kernels.epilogues import SCALE_A_SCALAR, SCALE_B_SCALAR
from cutlass_gemm.ops import gemm as ops

SM90 = "sm90_int8_bf16_scaled_bias_{}_{}_t128x128x128_c1x1x1_pingpong_s0_a16x16x8"
SM80 = "sm80_int8_bf16_scaled_bias_{}_{}_t128x128x64_c1x1x1_multistage_s5_a16x16x8"
DYN_A = "using ScaleA = cutlass::epilogue::fusion::Sm90ColBroadcast<"
DYN_B = "using ScaleB = cutlass::epilogue::fusion::Sm90RowBroadcast<"


def _decl(src: str, head: str) -> str:
    i = src.index(head)
    return src[i:src.index(">;", i)]


@pytest.mark.parametrize("sa,sb", [("token", "channel"), ("tensor", "channel"), ("token", "tensor")])
def test_sm90_vector_scales_take_a_dynamic_stride_set_from_the_flags(sa, sb):
    src = emit_source(KernelConfig.from_name(SM90.format(sa, sb)))
    assert f"cg_abi_version() {{ return {GEMM_LAUNCHER_ABI_VERSION}; }}" in src
    assert "constexpr int kScalarScalesServed = 3;" in src
    assert "void* stream_handle, int scale_flags,\n                        int64_t m_padded)" in src
    if sa == "token":
        assert "cute::Stride<bool, cute::Int<0>, cute::Int<0>>" in _decl(src, DYN_A)
        assert "cute::make_stride(!(scale_flags & 1), cute::Int<0>{}, cute::Int<0>{})" in src
    else:  # a scalar node: no broadcast node, no stride
        assert DYN_A not in src and "scale_flags & 1" not in src
    if sb == "channel":
        assert "cute::Stride<cute::Int<0>, bool, cute::Int<0>>" in _decl(src, DYN_B)
        assert "cute::make_stride(cute::Int<0>{}, !(scale_flags & 2), cute::Int<0>{})" in src
    else:
        assert DYN_B not in src and "scale_flags & 2" not in src
    # the bias stays a static unit-stride row vector
    assert "cute::Stride<cute::Int<0>, cute::Int<1>, cute::Int<0>>" in _decl(src, "using Bias = ")


@pytest.mark.parametrize("sa,sb,served", [("token", "channel", 0), ("tensor", "channel", SCALE_A_SCALAR),
                                          ("tensor", "tensor", SCALE_A_SCALAR | SCALE_B_SCALAR)])
def test_sm80_kernels_refuse_the_flags_of_their_vector_scales(sa, sb, served):
    cfg = KernelConfig.from_name(SM80.format(sa, sb))
    assert scalar_scales_served(cfg) == served
    src = emit_source(cfg)
    assert f"constexpr int kScalarScalesServed = {served};" in src
    assert "if (scale_flags & ~kScalarScalesServed)" in src and "bool" not in re.sub(r"//.*", "", src.split(
        "// ---- C-ABI launcher")[0])


class _Lib:
    def __init__(self, served):
        self.scalar_scales_served = served


@pytest.mark.parametrize("served,call,want,expected", [
    # SM90 / GEMV: every scalar broadcast by the kernel, nothing expanded
    (3, ("tensor", "tensor"), ("token", "channel"), (False, False, 3)),
    (3, ("tensor", "channel"), ("token", "channel"), (False, False, 1)),
    (3, ("token", "tensor"), ("token", "channel"), (False, False, 2)),
    (3, ("token", "channel"), ("token", "channel"), (False, False, 0)),
    (3, ("tensor", "channel"), ("tensor", "channel"), (False, False, 0)),  # its own kernel
    # SM80 vector kernel: expanded, no flags
    (0, ("tensor", "tensor"), ("token", "channel"), (True, True, 0)),
    (0, ("token", "tensor"), ("token", "channel"), (False, True, 0)),
    (1, ("tensor", "tensor"), ("tensor", "channel"), (False, True, 0)),
])
def test_scale_handling_broadcasts_where_served_and_expands_elsewhere(served, call, want, expected):
    assert ops._scale_handling(_Lib(served), *call, *want) == expected


def test_launch_args_end_with_the_flags_and_the_padded_rows(monkeypatch):
    import torch
    a = torch.zeros(4, 16, dtype=torch.int8)
    b = torch.zeros(8, 16, dtype=torch.int8).t()
    s = torch.ones(1)
    out = torch.empty(4, 8, dtype=torch.bfloat16)
    monkeypatch.setattr(torch._C, "_cuda_getCurrentRawStream", lambda dev: 0, raising=False)
    args = ops._launch_args("scaled", a, b, s, s, None, None, None, out, 4, 8, 16, 0, scale_flags=3)
    assert len(args) == 20 and args[-2:] == (3, 0) and args[3:6] == (4, 8, 16)
    args = ops._launch_args("scaled", a, b, s, s, None, None, None, out, 4, 8, 16, 0, scale_flags=1, m_padded=64)
    assert args[-2:] == (1, 64) and args[3] == 4
