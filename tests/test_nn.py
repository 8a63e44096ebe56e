"""cutlass_gemm.nn on the CPU (the ops' float reference path): every layer scheme against a float64
reference, state_dict round trips, casts, quantize_model reports, calibration. The tiny Llama is in
test_llama.py."""
import copy

import pytest
import torch
from torch import nn

import cutlass_gemm.nn as cnn
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.quant import quantize_static, quantize_activation

LAYERS = [(cnn.Int8Linear, a) for a in cnn.Int8Linear.ACTS] + [(cnn.Fp8Linear, a) for a in cnn.Fp8Linear.ACTS]


def _linear(k=64, n=40, bias=True, dtype=torch.bfloat16, seed=0):
    torch.manual_seed(seed)
    return nn.Linear(k, n, bias=bias).to(dtype)


def _reference(layer, x):
    """float64: quantize x as the layer's scheme says (reference quantizers), exact integer/fp8 products,
    dequantize, add the bias."""
    x2 = x.reshape(-1, layer.in_features).float()
    qt = layer.weight.dtype
    if layer.act.startswith("static"):
        zp = None if layer.input_zero_point is None else layer.input_zero_point.reshape(())
        qa = quantize_static(x2, layer.input_scale.reshape(()), zp, dtype=qt)
        a = qa.a.double() - (0 if zp is None else zp.double())
        sa = qa.scale_a.double()
    else:
        qa = quantize_activation(x2, dtype=qt, granularity="per_tensor" if layer.act == "dynamic_per_tensor"
                                 else "per_token", symmetric=not layer.act.endswith("asym"))
        a = qa.a.double() - (0 if qa.azp is None else qa.azp.double())
        sa = qa.scale_a.double()
    out = sa * (a @ layer.weight.double().t()) * layer.weight_scale.double()
    if layer.bias is not None:
        out = out + layer.bias.double()
    return out.reshape(*x.shape[:-1], layer.out_features)


@pytest.mark.parametrize("cls,act", LAYERS)
@pytest.mark.parametrize("bias", [True, False])
def test_layer_matches_reference_and_round_trips(cls, act, bias):
    lin = _linear(bias=bias)
    x = (torch.randn(3, 7, 64) * 2).bfloat16()
    layer = cls.from_float(lin, act=act, calibration_data=[x] if act.startswith("static") else None)
    y = layer(x)
    assert y.shape == (3, 7, 40) and y.dtype == torch.bfloat16
    ref = _reference(layer, x)
    assert ((y.double() - ref).abs() <= 1e-2 * ref.abs() + 1e-2 * ref.abs().max()).all()
    # quantization error against the float layer is what the format allows
    f = lin(x).double()
    assert ((y.double() - f).norm() / f.norm()).item() < (2e-2 if cls is cnn.Int8Linear else 6e-2)
    fresh = cls(64, 40, bias, act=act)
    fresh.load_state_dict(layer.state_dict())
    assert torch.equal(fresh(x), y)
    assert set(layer.state_dict()) >= {"weight", "weight_scale"}
    assert f"act={act!r}" in repr(layer) and "in_features=64" in repr(layer)


def test_forward_reads_a_buffer_reassigned_as_a_parameter():
    """forward reads its buffers from the module's buffer dict (the eager hot path); a buffer a user replaced by a
    Parameter leaves that dict, and forward then reads it as an attribute: same output, no KeyError."""
    layer = cnn.Int8Linear.from_float(_linear(), act="dynamic")
    x = (torch.randn(5, 64) * 2).bfloat16()
    y = layer(x)
    layer.weight_scale = nn.Parameter(layer.weight_scale.clone(), requires_grad=False)
    assert "weight_scale" not in layer._buffers and "weight_scale" in layer._parameters
    assert torch.equal(layer(x), y)
    with torch.no_grad():
        layer.weight_scale.mul_(2)  # the parameter is what forward reads now
    ref = _reference(layer, x)
    y2 = layer(x).double()
    assert ((y2 - ref).abs() <= 1e-2 * ref.abs() + 1e-2 * ref.abs().max()).all()
    assert not torch.equal(layer(x), y)


@pytest.mark.parametrize("make,name", [
    (lambda lin: cnn.WeightOnlyLinear.from_float(lin, bits=4, group_size=32), "scales"),
    (lambda lin: cnn.Int8BlockLinear.from_float(lin, block_size=64), "weight_scale"),
])
def test_other_layers_read_a_buffer_reassigned_as_a_parameter(make, name):
    """The weight-only and per-block layers read their state through the same reader (nn/_buffers.py BufferReader):
    a buffer replaced by a Parameter is read as an attribute, and a change to it changes the output."""
    layer = make(_linear(k=128, n=64))
    x = torch.randn(3, 128).bfloat16()
    y = layer(x)
    setattr(layer, name, nn.Parameter(getattr(layer, name).clone(), requires_grad=False))
    assert name not in layer._buffers and name in layer._parameters
    assert torch.equal(layer(x), y)
    with torch.no_grad():
        getattr(layer, name).mul_(2)
    assert not torch.equal(layer(x), y)


def test_buffer_reader_reads_the_dict_and_falls_back_to_attributes():
    from cutlass_gemm.nn._buffers import BufferReader
    m = nn.Module()
    m.register_buffer("a", torch.ones(2))
    m.register_buffer("b", None)
    read = BufferReader("a", "b")
    a, b = read(m)
    assert a is m.a and b is None
    m.b = nn.Parameter(torch.zeros(1))  # leaves _buffers: the attribute route
    a, b = read(m)
    assert a is m.a and b is m._parameters["b"]


@pytest.mark.parametrize("cls,act", LAYERS)
@pytest.mark.parametrize("cast", ["half", "to_bf16", "float", "double"])
def test_model_casts_never_touch_quantized_state(cls, act, cast):
    model = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 16)).bfloat16()
    x = torch.randn(5, 64).bfloat16()
    if act.startswith("static"):
        cals = cnn.calibrate(model, [x])
        model[0], model[2] = (cls.from_float(model[i], act=act, calibrator=cals[str(i)]) for i in (0, 2))
    else:
        model[0], model[2] = (cls.from_float(model[i], act=act) for i in (0, 2))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    y = model(x)
    {"half": model.half, "to_bf16": lambda: model.to(torch.bfloat16), "float": model.float,
     "double": model.double}[cast]()
    for k, v in model.state_dict().items():
        if k.endswith("bias"):
            continue
        assert v.dtype == before[k].dtype and torch.equal(v, before[k]), k  # scales stay float32, weights int8/fp8
    out_dtype = torch.float16 if cast == "half" else torch.bfloat16
    assert model[0].dtype == model[2].dtype == out_dtype and model[0].bias.dtype == out_dtype
    if cast in ("to_bf16", "float", "double"):
        assert torch.equal(model(x), y)  # nothing moved: same answer


def test_device_moves_and_to_empty_apply_to_every_buffer():
    layer = cnn.Int8Linear(64, 32, act="static_asym", device="meta")
    assert all(b.device.type == "meta" for b in layer.buffers())
    layer.to_empty(device="cpu")  # the meta -> real path of large-model loading
    assert all(b.device.type == "cpu" for b in layer.buffers())
    assert layer.weight.dtype == torch.int8 and layer.weight_scale.dtype == torch.float32
    src = cnn.Int8Linear.from_float(_linear(k=64, n=32), act="static_asym", calibration_data=[torch.randn(3, 64)])
    layer.load_state_dict(src.state_dict())
    x = torch.randn(4, 64).bfloat16()
    assert torch.equal(layer(x), src(x))
    layer.to("cpu", torch.float16)  # device and dtype at once: dtype reaches only bias and output
    assert layer.weight_scale.dtype == torch.float32 and layer.bias.dtype == torch.float16


def test_empty_layer_buffers_by_scheme_and_shape_errors():
    assert set(cnn.Int8Linear(64, 32).state_dict()) == {"weight", "weight_scale", "bias"}
    assert set(cnn.Int8Linear(64, 32, False, act="dynamic_asym").state_dict()) == {"weight", "weight_scale", "azp_adj"}
    assert set(cnn.Int8Linear(64, 32, act="static_asym").state_dict()) == {
        "weight", "weight_scale", "bias", "input_scale", "input_zero_point", "azp_adj"}
    fp8 = cnn.Fp8Linear(64, 32, act="static", dtype=torch.float16)
    assert fp8.weight.dtype == torch.float8_e4m3fn and fp8.bias.dtype == torch.float16
    assert fp8.weight_scale.shape == (1, 32) and fp8.input_scale.shape == (1,)
    assert repr(fp8) == ("Fp8Linear(in_features=64, out_features=32, bias=True, act='static', "
                         "weight=torch.float8_e4m3fn, out_dtype=torch.float16)")
    for args, arg in [((24, 32), "in_features"), ((64, 36), "out_features"), ((0, 32), "in_features")]:
        with pytest.raises(InvalidArgumentError) as ei:
            cnn.Int8Linear(*args)
        assert ei.value.argument == arg
    with pytest.raises(InvalidArgumentError) as ei:
        cnn.Int8Linear.from_float(nn.Linear(24, 32))
    assert ei.value.argument == "in_features"


def test_shared_module_is_replaced_everywhere_and_hooks_read_kwargs():
    shared = nn.Linear(64, 64).bfloat16()

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = shared, shared

        def forward(self, x):
            return self.b(input=self.a(x))

    net = Net()
    x = torch.randn(3, 64).bfloat16()
    cals = cnn.calibrate(net, [x])
    assert set(cals) == {"a"} and cals["a"].num_observed == 2 * x.numel()  # both calls, one calibrator
    report = cnn.quantize_model(net, "w8a8-int8-static", calibration=cals)
    assert report.quantized == ["a", "b"] and net.a is net.b and isinstance(net.a, cnn.Int8Linear)


def test_skip_patterns():
    model = nn.Sequential(nn.Sequential(nn.Linear(64, 64), nn.Linear(64, 64)), nn.Linear(64, 64))
    report = cnn.quantize_model(model, "w8a8-fp8", skip=["0.*"])
    assert report.quantized == ["1"] and set(report.skipped) == {"0.0", "0.1"}
    model = nn.Sequential(nn.Linear(64, 64), nn.Linear(64, 64))
    assert cnn.quantize_model(model, "w8a8-int8", skip="1").quantized == ["0"]


def test_casts_keep_scales_float32_and_move_the_output_dtype():
    layer = cnn.Int8Linear.from_float(_linear(), act="static", calibration_data=[torch.randn(4, 64)])
    before = layer.weight_scale.clone(), layer.input_scale.clone()
    layer.half()
    assert layer.dtype == torch.float16 and layer.bias.dtype == torch.float16
    assert layer.weight.dtype == torch.int8 and torch.equal(layer.weight_scale, before[0])
    assert torch.equal(layer.input_scale, before[1])
    layer.float()  # kernels write half precision: a float32 cast leaves the output dtype alone
    assert layer.dtype == torch.float16 and layer.weight_scale.dtype == torch.float32
    x = torch.randn(2, 64)
    assert layer(x).dtype == torch.float32  # computed in fp16, returned in the input's dtype


def test_float32_linear_gets_bfloat16_compute():
    lin = _linear(dtype=torch.float32)
    layer = cnn.Fp8Linear.from_float(lin)
    assert layer.dtype == torch.bfloat16 and layer.bias.dtype == torch.bfloat16
    x = torch.randn(5, 64)
    y = layer(x)
    assert y.dtype == torch.float32 and ((y - lin(x)).norm() / lin(x).norm()) < 6e-2


def test_quantize_model_report_skip_and_static():
    model = nn.Sequential(nn.Linear(64, 48), nn.ReLU(), nn.Linear(48, 24), nn.Linear(24, 16), nn.Linear(16, 32))
    model = model.bfloat16()
    x = torch.randn(6, 64).bfloat16()
    ref = model(x)
    m1 = copy.deepcopy(model)
    report = cnn.quantize_model(m1, "w8a8-int8", skip=lambda name, mod: name == "4")
    assert report.quantized == ["0", "2"]
    assert report.skipped["3"].startswith("in_features=24") and report.skipped["4"] == "skipped by the user"
    assert isinstance(m1[0], cnn.Int8Linear) and type(m1[3]) is nn.Linear and "2 skipped" in str(report)
    assert ((m1(x) - ref).float().norm() / ref.float().norm()) < 5e-2
    m2 = copy.deepcopy(model)
    cals = cnn.calibrate(m2, [x, x * 0.5], skip=["2"])
    assert set(cals) == {"0", "3", "4"}  # every linear the batches reached, but the skipped one
    report = cnn.quantize_model(m2, "w8a8-fp8-static", calibration=cals)
    assert report.quantized == ["0", "4"] and report.skipped["2"] == "no calibration data reached this layer"
    assert report.skipped["3"].startswith("in_features=24")
    assert isinstance(m2[0], cnn.Fp8Linear) and m2[0].act == "static"


def test_quantize_model_errors():
    model = nn.Sequential(nn.Linear(64, 48))
    with pytest.raises(InvalidArgumentError) as ei:
        cnn.quantize_model(model, "w2a16")  # (w4a16 is a weight-only scheme now)
    assert ei.value.argument == "scheme"
    with pytest.raises(InvalidArgumentError) as ei:
        cnn.quantize_model(model, "w8a8-int8-static")
    assert ei.value.argument == "calibration"
    with pytest.raises(InvalidArgumentError) as ei:
        cnn.Fp8Linear.from_float(nn.Linear(64, 48), act="dynamic_asym")
    assert ei.value.argument == "act"
    with pytest.raises(InvalidArgumentError) as ei:
        cnn.Int8Linear(64, 48, dtype=torch.float32)
    assert ei.value.argument == "dtype"
    with pytest.raises(InvalidArgumentError) as ei:
        cnn.Int8Linear.from_float(nn.Conv1d(4, 4, 1))
    assert ei.value.argument == "linear"


def test_traces_fullgraph():
    model = nn.Sequential(nn.Linear(64, 128), nn.SiLU(), nn.Linear(128, 64)).bfloat16()
    cnn.quantize_model(model, "w8a8-int8-asym")
    x = torch.randn(3, 64).bfloat16()
    compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
    assert torch.equal(compiled(x), model(x))




ALL_LINEAR_SCHEMES = sorted(set(cnn.SCHEMES) | set(cnn.BLOCK_SCHEMES) | set(cnn.WEIGHT_ONLY_SCHEMES))


def strided_inputs(make):
    """(name, x, the same values contiguous) for inputs nn.Linear takes and the kernels do not read as they are:
    a last dimension with a stride (transposed, sliced) and leading dimensions that do not merge into rows.
    `make(shape)` draws a tensor on the wanted device and dtype."""
    t = make((4, 256, 9)).transpose(1, 2)          # (4, 9, 256), last stride 9
    sl = make((4, 9, 512))[..., ::2]                # last stride 2
    lead = make((9, 4, 256)).transpose(0, 1)        # last stride 1, rows not one stride apart
    return [(name, x, x.contiguous()) for name, x in (("transposed", t), ("sliced", sl), ("leading", lead))]


@pytest.mark.parametrize("scheme", ALL_LINEAR_SCHEMES)
def test_every_linear_layer_takes_any_input_strides(scheme):
    """A quantized layer replaces nn.Linear, which takes any strides: each layer gives a strided input the outputs of
    its contiguous copy, bit for bit (the layer makes the copy where its kernels need unit-stride rows)."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(256, 128)).to(torch.bfloat16)
    x0 = torch.randn(4, 9, 256, dtype=torch.bfloat16)
    cals = cnn.calibrate(model, [x0], dtype=torch.float8_e4m3fn if "fp8" in scheme else torch.int8) \
        if scheme.endswith("static") else None
    report = cnn.quantize_model(model, scheme, calibration=cals)
    assert not report.skipped, report.skipped
    for name, x, xc in strided_inputs(lambda shape: torch.randn(shape, dtype=torch.bfloat16)):
        assert x.stride() != xc.stride()
        y = model(x)
        assert y.shape == (4, 9, 128) and torch.equal(y, model(xc)), (scheme, name)
