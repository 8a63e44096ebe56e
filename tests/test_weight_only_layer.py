"""Weight-only op and layer on the CPU: `weight_only_linear` / `cutlass_gemm::weight_only_mm` against a
float64 reference, typed errors, opcheck, torch.compile tracing (fake impl), `WeightOnlyLinear`
constructors and state_dict round trips, and the w4a16 / w8a16 `quantize_model` schemes."""
import pytest
import torch
from torch import nn

import cutlass_gemm.nn as cnn
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.nn import WeightOnlyLinear, quantize_model
from cutlass_gemm.ops import weight_only_backend, weight_only_linear, weight_only_mm
from cutlass_gemm.quant import prepack, quantize_weight_only
from cutlass_gemm.quant.weight_only import AWQ_PACK_ORDER

from test_weight_only import _gptq_case, _pack_cols, _pack_rows


def _ref(x, wq, bias=None):
    y = x.double() @ wq.dequantize(torch.float64).t()
    return y if bias is None else y + bias.double()


def _rel(y, ref):
    return ((y.double() - ref).norm() / ref.norm()).item()


@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (4, 32, True), (8, None, False), (8, 64, True)])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_op_cpu_matches_float64(bits, group, zp, dtype):
    g = torch.Generator().manual_seed(bits)
    wq = quantize_weight_only(torch.randn(96, 384, generator=g), bits, group, zero_point=zp, scale_dtype=dtype)
    p = prepack(wq)
    x = torch.randn(2, 3, 384, generator=g).to(dtype)
    bias = torch.randn(96, generator=g).to(dtype)
    y = weight_only_linear(x, p, bias)
    assert y.shape == (2, 3, 96) and y.dtype == dtype
    assert _rel(y, _ref(x, wq, bias)) < 2e-3
    assert weight_only_backend(6, p) == "cpu_reference"
    y2 = torch.ops.cutlass_gemm.weight_only_mm(x, p.qweight, p.scales, p.zeros, bias, None, layout=p.layout,
                                               bits=bits, group_size=group or 0, n=96)
    assert torch.equal(y, y2)


def test_op_cpu_act_order_and_other_scale_dtype():
    k, n, group = 256, 64, 64
    q, zeros, scales = _gptq_case(k, n, group, 4, seed=7)
    g_idx = (torch.arange(k) // group)[torch.randperm(k, generator=torch.Generator().manual_seed(1))]
    layer = WeightOnlyLinear.from_gptq(_pack_rows(q, 4), _pack_cols(zeros - 1, 4), scales, g_idx.to(torch.int32))
    assert layer.perm is not None and layer.act_order and layer.dtype == torch.float16
    x = torch.randn(5, k).half()
    want = x.double() @ ((q.double() - zeros.double()[g_idx]) * scales.double()[g_idx])
    assert _rel(layer(x), want) < 2e-3
    assert _rel(layer(x.bfloat16()).double(), want) < 1e-2  # bf16 input: computed in fp16, returned in bf16
    again = WeightOnlyLinear(k, n, bias=False, bits=4, group_size=group, zero_point=True, act_order=True,
                             dtype=torch.float16)
    assert set(layer.state_dict()) == {"qweight", "scales", "zeros", "perm"}
    again.load_state_dict(layer.state_dict())
    assert torch.equal(again(x), layer(x)) and torch.equal(again.perm, layer.perm)


def test_op_errors_name_the_argument():
    p = prepack(quantize_weight_only(torch.randn(64, 128), 4, 64))
    x = torch.randn(3, 128).bfloat16()
    cases = [
        (lambda: weight_only_linear(x.float(), p), "x"),
        (lambda: weight_only_linear(x[:, :64], p), "x"),
        (lambda: weight_only_linear(torch.randn(128, 3).bfloat16().t(), p), "x"),
        (lambda: weight_only_linear(x, p, torch.zeros(63).bfloat16()), "bias"),
        (lambda: weight_only_linear(x, p, torch.zeros(64)), "bias"),
        (lambda: weight_only_linear(x, "packed"), "packed"),
        (lambda: weight_only_mm(x, p.qweight, p.scales, layout="wo_other_v1", bits=4, group_size=64), "layout"),
        (lambda: weight_only_mm(x, p.qweight, p.scales, bits=8, group_size=64), "qweight"),
        (lambda: weight_only_mm(x, p.qweight, p.scales, bits=4, group_size=32), "scales"),
        (lambda: weight_only_mm(x, p.qweight, p.scales, p.scales, bits=4, group_size=64, perm=torch.arange(127)), "perm"),
        (lambda: torch.ops.cutlass_gemm.weight_only_mm(x, p.qweight, p.scales, None, None, None, layout="x",
                                                       bits=4, group_size=64, n=64), "layout"),
    ]
    for call, arg in cases:
        with pytest.raises(InvalidArgumentError) as e:
            call()
        assert e.value.argument == arg, (arg, str(e.value))


def test_opcheck_and_compile_trace_cpu():
    p = prepack(quantize_weight_only(torch.randn(64, 128), 8, None, zero_point=True))
    x = torch.randn(4, 128).bfloat16()
    bias = torch.randn(64).bfloat16()
    torch.library.opcheck(torch.ops.cutlass_gemm.weight_only_mm.default, (x, p.qweight, p.scales, p.zeros, bias, None),
                          {"layout": p.layout, "bits": 8, "group_size": 0, "n": 64})
    layer = WeightOnlyLinear.from_packed(p, bias)
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    assert torch.equal(compiled(x), layer(x))


def _linear(n=96, k=256, dtype=torch.bfloat16, bias=True, seed=0):
    torch.manual_seed(seed)
    return nn.Linear(k, n, bias=bias).to(dtype)


@pytest.mark.parametrize("bits,group,zp", [(4, 128, False), (4, 64, True), (8, None, False), (8, 32, True)])
def test_layer_from_float_and_state_dict_round_trip(bits, group, zp):
    lin = _linear()
    layer = WeightOnlyLinear.from_float(lin, bits=bits, group_size=group, zero_point=zp)
    wq = quantize_weight_only(lin.weight, bits, group, zero_point=zp, scale_dtype=torch.bfloat16)
    x = torch.randn(7, 256).bfloat16()
    assert torch.equal(layer(x), weight_only_linear(x, prepack(wq), lin.bias.detach()))
    assert _rel(layer(x), _ref(x, wq, lin.bias)) < 5e-3
    sd = layer.state_dict()
    assert set(sd) == {"qweight", "scales", "bias"} | ({"zeros"} if zp else set())
    empty = WeightOnlyLinear(256, 96, bits=bits, group_size=group, zero_point=zp)
    assert torch.equal(empty(x), torch.zeros(7, 96).bfloat16())  # an empty layer is a zero weight
    empty.load_state_dict(sd)
    assert torch.equal(empty(x), layer(x))
    r = repr(layer)
    assert f"bits={bits}" in r and "wo_mma_sm80_v1" in r and f"zero_point={zp}" in r
    # casts: scales keep their dtype, the bias and output dtype follow half casts, float casts do nothing
    layer.half()
    assert layer.scales.dtype == torch.bfloat16 and layer.bias.dtype == torch.float16 and layer.dtype == torch.float16
    assert layer(x.half()).dtype == torch.float16 and layer.qweight.dtype == torch.int32
    layer.float()
    assert layer.dtype == torch.float16 and layer(x.float()).dtype == torch.float32


def test_layer_from_awq_and_gptq_v2():
    k, n, group = 256, 64, 128
    q, zeros, scales = _gptq_case(k, n, group, 4, seed=11)
    layer = WeightOnlyLinear.from_awq(_pack_cols(q, 4, AWQ_PACK_ORDER), _pack_cols(zeros, 4, AWQ_PACK_ORDER), scales,
                                      bias=torch.zeros(n).half())
    want = (q.double() - zeros.double().repeat_interleave(group, 0)) * scales.double().repeat_interleave(group, 0)
    x = torch.randn(3, k).half()
    assert layer.zero_point and layer.group_size == group and _rel(layer(x), x.double() @ want) < 2e-3
    g2 = WeightOnlyLinear.from_gptq(_pack_rows(q, 4), _pack_cols(zeros, 4), scales, bits=4, checkpoint_format="gptq_v2")
    assert g2.perm is None and g2.bias is None and torch.equal(g2(x), layer(x))
    sd = g2.state_dict()
    again = WeightOnlyLinear(k, n, bias=False, bits=4, group_size=group, zero_point=True, dtype=torch.float16)
    again.load_state_dict(sd)
    assert torch.equal(again(x), g2(x))


def test_layer_rejects_unservable_shapes():
    for (k, n, group, arg) in ((256, 48, 128, "out_features"), (96, 64, None, "in_features"),
                               (320, 64, 128, "in_features")):
        with pytest.raises(InvalidArgumentError) as e:
            WeightOnlyLinear(k, n, group_size=group)
        assert e.value.argument == arg
    with pytest.raises(InvalidArgumentError) as e:
        WeightOnlyLinear.from_float(nn.Linear(64, 64), bits=3)
    assert e.value.argument == "bits"


def test_quantize_model_weight_only_schemes():
    model = nn.Sequential(nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 96), nn.Linear(96, 40)).bfloat16()
    x = torch.randn(4, 256).bfloat16()
    with torch.no_grad():
        ref = model(x).double()
    for scheme, bits in (("w4a16", 4), ("w8a16", 8)):
        m = nn.Sequential(*[type(mod)(mod.in_features, mod.out_features) if isinstance(mod, nn.Linear) else mod
                            for mod in model]).bfloat16()
        m.load_state_dict(model.state_dict())
        report = quantize_model(m, scheme)
        assert report.quantized == ["0", "2"] and set(report.skipped) == {"3"}
        assert "out_features=40" in report.skipped["3"] and "32" in report.skipped["3"]
        assert isinstance(m[0], WeightOnlyLinear) and m[0].bits == bits and isinstance(m[3], nn.Linear)
        assert (m[0].group_size, m[2].group_size) == ((128, 128) if bits == 4 else (None, None))
        with torch.no_grad():
            assert _rel(m(x), ref) < (0.25 if bits == 4 else 2e-2)  # quantization error of uniform weights
    assert set(cnn.WEIGHT_ONLY_SCHEMES) == {"w4a16", "w8a16"}
    with pytest.raises(InvalidArgumentError) as e:
        quantize_model(model, "w3a16")
    assert e.value.argument == "scheme" and "w4a16" in str(e.value)
