"""The SM80 W8A16 upcast kernel (kernels/emit_mixed80.py: CUTLASS 2's OpMultiplyAddMixedInputUpcast GEMM with the
per-channel scale and bias in its EVT; what A100 / A10 / L4 / L40 users run above the small-M kernels' rows) executed
on an SM90 GPU from sm_90 machine code (CUTLASS_GEMM_SM80_ARCHS=80,90), the device switched to the SM80 family as in
tests/test_sm80_on_sm90_gpu.py: every output element against float64 on the dequantized weight (outputs poisoned
first), both dtypes, odd shapes, bias or none; WeightOnlyLinear(large_m_backend="cutlass_upcast") routed to it, under
torch.compile(fullgraph=True) and in a CUDA graph. Run with `pytest -m gpu` on an H100/H200."""
import pytest
import torch

import cutlass_gemm.nn as cnn
from cutlass_gemm.kernels.mixed_input import default_configs
from cutlass_gemm.ops import weight_only as wo
from cutlass_gemm.quant import quantize_weight_only
from cutlass_gemm.quant.prepack import LAYOUT_UPCAST, prepack, unpack
from cutlass_gemm.runtime import build, kernel_list
from gpu_helpers import family_on_sm90, replays_match_eager
from test_ops_gpu import check

pytestmark = pytest.mark.gpu


def family_configs():
    """The kernels this module's fixture builds at once (tools/suite_plan.py builds them ahead for a run of this file)."""
    return default_configs(80)


@pytest.fixture(scope="module", autouse=True)
def sm80_family():
    with family_on_sm90(80, family_configs(), "sm80_mixed", {build.SM80_ARCHS_ENV: "80,90"}) as dev:
        yield dev


def _case(m, n, k, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    wq = quantize_weight_only(torch.randn(n, k, device="cuda", generator=g), 8, None, scale_dtype=dtype)
    x = torch.randn(m, k, device="cuda", generator=g).to(dtype)
    bias = torch.randn(n, device="cuda", generator=g).to(dtype)
    return wq, x, bias


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_upcast_kernel_every_element_against_float64(dtype):
    for m, n, k, seed in ((65, 136, 208, 1), (200, 4096, 1024, 2), (1000, 520, 4096, 3), (4096, 4096, 4096, 4)):
        wq, x, bias = _case(m, n, k, dtype, seed)
        packed = prepack(wq, "cutlass_upcast_sm80", device="cuda")
        assert wo.weight_only_backend(m, packed) == "cutlass_upcast_sm80"
        w64 = wq.dequantize(torch.float64).cuda()
        for b in (bias, None):
            torch.full((m * n * 2,), float("nan"), dtype=dtype, device="cuda")  # poison what the output reuses
            y = wo.weight_only_mm(x, packed.qweight, packed.scales, None, b, layout=LAYOUT_UPCAST, bits=8,
                                  group_size=0, n=n)
            ref = x.double() @ w64.t() + (0 if b is None else b.double())
            rel = check(y, ref, f"upcast {dtype} {m}x{n}x{k} bias={b is not None}")
        print(f"SM80 upcast {dtype} {m}x{n}x{k}: relative error {rel:.2e}")
    names = kernel_list.loaded_names()
    assert any(name.startswith("sm80_mixed_") for name in names), names


def test_layer_takes_the_upcast_kernel_above_the_small_m_rows():
    torch.manual_seed(0)
    lin = torch.nn.Linear(1024, 4096).to("cuda", torch.bfloat16)
    layer = cnn.WeightOnlyLinear.from_float(lin, bits=8, group_size=None, large_m_backend="cutlass_upcast")
    x = torch.randn(2, 100, 1024, device="cuda", dtype=torch.bfloat16)
    rows = 200
    assert wo.weight_only_backend(rows, layer.packed, layer.packed_upcast) == "cutlass_upcast_sm80"
    y = layer(x)
    w64 = unpack(layer.packed_upcast).dequantize(torch.float64)
    ref = x.double() @ w64.t() + layer.bias.double()
    check(y.reshape(rows, -1), ref.reshape(rows, -1), "WeightOnlyLinear upcast")
    compiled = torch.compile(layer, fullgraph=True)
    assert torch.equal(compiled(x), y)
    replays_match_eager(layer, x.clone(), [torch.randn_like(x)])
