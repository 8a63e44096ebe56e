"""CPU: the per-block int8 GEMM op (`scaled_mm_blockwise_int8`) and `Int8BlockLinear`: typed argument
checks, the fake impl, opcheck and torch.compile on the CPU reference, the reference math against an
independent float64 computation (random shapes, strided scales), per-block vs per-token accuracy with
outlier channels, the layer's state_dict / repr / casts, and quantize_model's "w8a8-int8-block128"."""
import pytest
import torch

from cutlass_gemm import scaled_mm_blockwise_int8
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.nn import BLOCK_SCHEMES, Int8BlockLinear, quantize_model
from cutlass_gemm.ops import quantize_per_group, quantize_per_token
from cutlass_gemm.quant import quantize_per_block
from cutlass_gemm.runtime import extension


def _operands(m, n, k, block, seed=0, outliers=False):
    g = torch.Generator().manual_seed(seed)
    a = torch.randint(-127, 128, (m, k), generator=g, dtype=torch.int8)
    b = torch.randint(-127, 128, (n, k), generator=g, dtype=torch.int8)
    sa = torch.rand(m, k // block, generator=g) * 1e-2 + 1e-3
    sb = torch.rand(n, k // block, generator=g) * 1e-3 + 1e-4
    if outliers:  # blocks whose scales differ by 1e4 from the rest (up and down: fp16 outputs stay finite)
        sb[::7, 0] *= 1e4
        sa[::3, -1] *= 1e-4
    return a, b, sa, sb


def _float64(a, b, sa, sb, bias, block):
    """Independent reference: dequantize both operands per block in float64, one matmul."""
    da = a.double() * sa.double().repeat_interleave(block, dim=1)
    db = b.double() * sb.double().repeat_interleave(block, dim=1)
    y = da @ db.t()
    return y if bias is None else y + bias.double()


@pytest.mark.parametrize("m,n,k,block", [(1, 192, 384, 128), (5, 100, 192, 64), (17, 72, 1152, 128),
                                         (33, 320, 640, 64), (16, 8, 128, 128)])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16])
def test_reference_matches_float64(m, n, k, block, out_dtype):
    a, b, sa, sb = _operands(m, n, k, block, seed=m + n + k, outliers=True)
    bias = (torch.randn(n) * 0.1).to(out_dtype) if m % 2 else None
    y = scaled_mm_blockwise_int8(a, b, sa, sb, bias, out_dtype=out_dtype, block_size=block)
    assert y.shape == (m, n) and y.dtype == out_dtype
    ref = _float64(a, b, sa, sb, bias, block)
    rtol = 2 ** -8 if out_dtype == torch.bfloat16 else 2 ** -11
    assert torch.all((y.double() - ref).abs() <= rtol * ref.abs() + 1e-6)


@pytest.mark.parametrize("activation", [None, "relu", "relu6", "gelu_tanh", "silu"])
def test_activations_and_strided_scales(activation):
    m, n, k, block = 6, 64, 256, 64
    a, b, sa, sb = _operands(m, n, k, block, seed=3)
    sb = sb * 300  # outputs of order 1..10, where the activations differ
    want = scaled_mm_blockwise_int8(a, b, sa, sb, None, activation=activation, block_size=block)
    pre = _float64(a, b, sa, sb, None, block).float()
    f = {None: lambda x: x, "relu": torch.relu, "relu6": lambda x: x.clamp(0, 6),
         "gelu_tanh": lambda x: torch.nn.functional.gelu(x, approximate="tanh"), "silu": torch.nn.functional.silu}
    assert torch.allclose(want.float(), f[activation](pre).bfloat16().float(), rtol=2 ** -7, atol=1e-3)
    # a transposed (K/B, N) weight-scale table and a non-contiguous scale_a view: same result, no copy
    sb_t = sb.t().contiguous().t()
    sa_wide = torch.zeros(m, 2 * (k // block))
    sa_wide[:, ::2] = sa
    assert torch.equal(scaled_mm_blockwise_int8(a, b, sa_wide[:, ::2], sb_t, None, activation=activation,
                                                block_size=block), want)


def test_per_token_scale_expanded_equals_per_token_math():
    m, n, k = 4, 32, 256
    a, b, _, sb = _operands(m, n, k, 128, seed=5)
    st = torch.rand(m, 1) + 0.5
    y = scaled_mm_blockwise_int8(a, b, st.expand(m, 2), sb, None, out_dtype=torch.float16)
    assert torch.allclose(y.double(), _float64(a, b, st.expand(m, 2), sb, None, 128), rtol=2 ** -10, atol=1e-6)


def _quantized_error(y, ref):
    return ((y - ref).norm() / ref.norm()).item()


def test_outlier_blocks_per_block_beats_per_token():
    """Activations whose block 0 is 1e4 times larger than the others and weights whose block 0 is 1e4
    times smaller (every block contributes alike): per-token activation scales and per-channel weight
    scales flush the small blocks to zero; per-block scales keep each block at full resolution."""
    torch.manual_seed(0)
    m, n, k, block = 16, 64, 512, 128
    x = torch.randn(m, k, dtype=torch.float64)
    w = torch.randn(n, k, dtype=torch.float64)
    x[:, :block] *= 1e4
    w[:, :block] *= 1e-4
    ref = x @ w.t()
    qa, sa = quantize_per_group(x.float(), block)
    wq = quantize_per_block(w.float(), block)
    y_block = scaled_mm_blockwise_int8(qa, wq.q, sa, wq.scale, None, out_dtype=torch.float16, block_size=block)
    qt, st = quantize_per_token(x.float())
    wc = quantize_per_block(w.float(), k)  # one block spanning K: per-channel weight scales
    y_token = (qt.double() @ wc.q.double().t()) * st.double() * wc.scale.double().t()
    e_block, e_token = _quantized_error(y_block.double(), ref), _quantized_error(y_token, ref)
    assert e_block < 0.02, e_block
    assert e_token > 0.3, e_token
    assert e_block * 20 < e_token


BAD = [
    ("a", lambda a, b, sa, sb: dict(a=a.float())),
    ("a", lambda a, b, sa, sb: dict(a=a[None])),
    ("a", lambda a, b, sa, sb: dict(a=a.t().contiguous().t())),
    ("b", lambda a, b, sa, sb: dict(b=b[:, :128])),
    ("b", lambda a, b, sa, sb: dict(b=b.to(torch.uint8))),
    ("scale_a", lambda a, b, sa, sb: dict(scale_a=sa.double())),
    ("scale_a", lambda a, b, sa, sb: dict(scale_a=sa[:, :1])),
    ("scale_b", lambda a, b, sa, sb: dict(scale_b=sb.t())),
    ("scale_b", lambda a, b, sa, sb: dict(scale_b=[1.0])),
    ("block_size", lambda a, b, sa, sb: dict(block_size=32)),
    ("block_size", lambda a, b, sa, sb: dict(block_size=True)),
    ("out_dtype", lambda a, b, sa, sb: dict(out_dtype=torch.float32)),
    ("bias", lambda a, b, sa, sb: dict(bias=torch.zeros(48))),
    ("bias", lambda a, b, sa, sb: dict(bias=torch.zeros(48, dtype=torch.bfloat16)[:24].repeat(2)[::1].float())),
    ("bias", lambda a, b, sa, sb: dict(bias=torch.zeros(96, dtype=torch.bfloat16)[::2])),
    ("activation", lambda a, b, sa, sb: dict(activation="gelu")),
]


@pytest.mark.parametrize("arg,change", BAD)
def test_bad_arguments_raise_typed_errors(arg, change):
    a, b, sa, sb = _operands(3, 48, 256, 128)
    kw = dict(a=a, b=b, scale_a=sa, scale_b=sb)
    kw.update(change(a, b, sa, sb))
    with pytest.raises(InvalidArgumentError) as e:
        scaled_mm_blockwise_int8(**kw)
    assert e.value.argument == arg


def test_k_not_a_multiple_of_the_block():
    a, b, sa, sb = _operands(3, 48, 192, 64)
    with pytest.raises(InvalidArgumentError) as e:
        scaled_mm_blockwise_int8(a, b, sa[:, :1], sb[:, :1], block_size=128)
    assert e.value.argument == "a"


def test_fake_impl_opcheck_and_compile_on_cpu():
    from torch._subclasses.fake_tensor import FakeTensorMode
    a, b, sa, sb = _operands(7, 40, 256, 64)
    op = torch.ops.cutlass_gemm.scaled_mm_blockwise_int8.default
    with FakeTensorMode() as mode:
        fa, fb, fsa, fsb = (mode.from_tensor(t) for t in (a, b, sa, sb))
        y = op(fa, fb, fsa, fsb, None, torch.float16, "silu", 64)
        assert y.shape == (7, 40) and y.dtype == torch.float16
    torch.library.opcheck(op, (a, b, sa, sb, torch.zeros(40, dtype=torch.bfloat16), torch.bfloat16, "relu", 64))
    fn = torch.compile(lambda *t: scaled_mm_blockwise_int8(*t, block_size=64), fullgraph=True, backend="eager")
    assert torch.equal(fn(a, b, sa, sb), scaled_mm_blockwise_int8(a, b, sa, sb, block_size=64))


def test_empty_m():
    a, b, sa, sb = _operands(0, 16, 128, 128)
    assert scaled_mm_blockwise_int8(a, b, sa, sb).shape == (0, 16)


# ------------------------------------------------------------------------------------ layer
def test_layer_from_float_state_dict_repr_and_casts():
    torch.manual_seed(0)
    lin = torch.nn.Linear(384, 80).bfloat16()
    layer = Int8BlockLinear.from_float(lin, block_size=128, activation="relu")
    assert layer.weight.dtype == torch.int8 and layer.weight_scale.shape == (80, 3)
    assert "block_size=128" in repr(layer) and "activation='relu'" in repr(layer)
    x = torch.randn(2, 3, 384).bfloat16()
    y = layer(x)
    assert y.shape == (2, 3, 80) and y.dtype == torch.bfloat16
    ref = torch.relu(lin(x).float())
    assert ((y.float() - ref).norm() / ref.norm()) < 0.02
    empty = Int8BlockLinear(384, 80, True, block_size=128, activation="relu")
    empty.load_state_dict(layer.state_dict())
    assert torch.equal(empty(x), y)
    assert set(layer.state_dict()) == {"weight", "weight_scale", "bias"}
    # the manual composition: per-group quantization, then the op
    q, s = quantize_per_group(x.reshape(6, 384), 128)
    manual = scaled_mm_blockwise_int8(q, layer.weight, s, layer.weight_scale, layer.bias, activation="relu")
    assert torch.equal(manual.reshape(2, 3, 80), y)
    half = Int8BlockLinear.from_float(lin.float(), block_size=64).half()
    assert half.weight.dtype == torch.int8 and half.weight_scale.dtype == torch.float32
    assert half.bias.dtype == torch.float16 and half.dtype == torch.float16
    assert half(torch.randn(4, 384).double()).dtype == torch.float64


def test_layer_argument_errors():
    for kwargs, arg in [(dict(in_features=100, out_features=8), "in_features"),
                        (dict(in_features=128, out_features=8, block_size=32), "block_size"),
                        (dict(in_features=128, out_features=8, dtype=torch.float32), "dtype"),
                        (dict(in_features=128, out_features=8, activation="tanh"), "activation")]:
        with pytest.raises(InvalidArgumentError) as e:
            Int8BlockLinear(**kwargs)
        assert e.value.argument == arg
    with pytest.raises(InvalidArgumentError) as e:
        Int8BlockLinear(128, 8)(torch.randn(2, 64))
    assert e.value.argument == "x"


def test_quantize_model_scheme():
    assert BLOCK_SCHEMES == {"w8a8-int8-block128": 128}
    model = torch.nn.Sequential(torch.nn.Linear(256, 128), torch.nn.ReLU(), torch.nn.Linear(128, 96),
                                torch.nn.Linear(96, 8), torch.nn.Conv2d(4, 4, 1))
    report = quantize_model(model, "w8a8-int8-block128")
    assert report.quantized == ["0", "2"]
    assert "multiple of block_size=128" in report.skipped["3"] and "convolution" in report.skipped["4"]
    assert isinstance(model[0], Int8BlockLinear) and model[0].block_size == 128
    assert model[:4](torch.randn(3, 256)).shape == (3, 8)


def test_extension_builds_the_new_sources():
    assert "bi8_ops.cu" in extension.SOURCES
    assert {"bi8_gemm.cuh", "bi8_launch.cuh", "bi8_ops.h"} <= set(extension.HASHED)


def test_sm90_route_conditions(monkeypatch):
    """Which calls the SM90 CUTLASS int8 kernel serves (no GPU: the device check patched), and the layers' C++ call
    asks the same shape/device rule (ops.blockwise_int8.sm90_serves)."""
    from cutlass_gemm.ops import blockwise as bops
    from cutlass_gemm.ops import blockwise_int8 as bi8
    from cutlass_gemm.ops.block_linear import _int8_cutlass
    monkeypatch.setattr(bops, "is_sm90", lambda dev: True)
    m, n, k = 40, 264, 256
    a, b = torch.zeros(m, k, dtype=torch.int8), torch.zeros(n, k, dtype=torch.int8)
    sa, sb = torch.ones(m, k // 128), torch.ones(n, k // 128)
    sa_t, sb_t, major = bi8.sm90_route(a, b, sa, sb, None, 128)
    assert major == "k" and sa_t is sa and sb_t.is_contiguous()
    assert bi8.sm90_route(a, b, sa.t().contiguous().t(), sb, None, 128)[2] == "mn"
    assert bi8.sm90_route(a, b, sa, sb.t().contiguous().t(), None, 128)[1].is_contiguous()
    assert bi8.sm90_route(a, b, sa, sb, None, 64) is None                   # block 64: the extension's kernel
    assert bi8.sm90_route(a[:16], b, sa[:16], sb, None, 128) is None        # decode M
    assert bi8.sm90_route(a, b[:260], sa, sb[:260], None, 128) is None      # N % 8 != 0
    assert bi8.sm90_route(a[:, 1:], b[:, 1:], sa, sb, None, 128) is None  # rows not 16-byte aligned
    monkeypatch.setenv(bi8.CUTLASS_ENV, "0")
    assert bi8.sm90_route(a, b, sa, sb, None, 128) is None and not _int8_cutlass(a, b, sb, None, m, 128)
    monkeypatch.delenv(bi8.CUTLASS_ENV)
    assert _int8_cutlass(a, b, sb, None, m, 128) and not _int8_cutlass(a, b, sb, None, 16, 128)
    assert not _int8_cutlass(a, b, sb.t().contiguous().t(), None, m, 128)  # the C++ call needs contiguous scales
    monkeypatch.setattr(bops, "is_sm90", lambda dev: False)
    assert bi8.sm90_route(a, b, sa, sb, None, 128) is None and not _int8_cutlass(a, b, sb, None, m, 128)
