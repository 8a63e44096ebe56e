"""1x1 quantized convolutions on the CPU (the ops' float reference path): `conv2d_weight_only` and
`conv2d_int8` against a float64 F.conv2d with the dequantized weight (and, for int8, the reference-quantized
activation), over random shapes with odd H/W and batches, NCHW and channels_last, bias, ReLU/ReLU6; the
memory-format rule; every typed error; the layers (`WeightOnlyConv2d`, `Int8Conv2d`): state_dict round
trips, repr, casts, torch.compile(fullgraph=True); `quantize_model` / `calibrate` on a model mixing 1x1 and
3x3 convolutions and linear layers."""
import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import cutlass_gemm
import cutlass_gemm.nn as cnn
from cutlass_gemm import UnsupportedConvError, conv2d_int8, conv2d_weight_only
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.ops.conv import to_rows
from cutlass_gemm.quant import prepack, quantize_activation, quantize_static, quantize_weight_only

CL = torch.channels_last
FORMATS = [(4, 128, False), (4, 32, True), (8, None, False), (8, 64, True)]


def _x(n, c, h, w, dtype=torch.bfloat16, channels_last=False, seed=0):
    x = torch.randn(n, c, h, w, generator=torch.Generator().manual_seed(seed)).to(dtype)
    return x.contiguous(memory_format=CL) if channels_last else x


def _close(y, ref, rtol=1e-2):
    """Elementwise: within rtol of the element or of the largest output (16-bit output rounding is ~4e-3)."""
    err = (y.double() - ref).abs()
    assert torch.isfinite(y).all()
    assert (err <= rtol * ref.abs() + rtol * ref.abs().max()).all(), err.max().item()


def _layout_ok(y, x):
    if x.is_contiguous(memory_format=CL):
        assert y.is_contiguous(memory_format=CL)
    else:
        assert y.is_contiguous()


# ------------------------------------------------------------------------------------ weight-only op
@pytest.mark.parametrize("bits,block,zp", FORMATS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("channels_last", [False, True])
def test_weight_only_op_matches_float64_conv(bits, block, zp, dtype, channels_last):
    g = torch.Generator().manual_seed(bits * 7 + (block or 0))
    for case in range(3):
        n, h, w = [int(v) for v in torch.randint(1, 8, (3,), generator=g)]  # odd sizes and batches included
        ci, co = 64 * int(torch.randint(1, 4, (1,), generator=g)), 32 * int(torch.randint(1, 4, (1,), generator=g))
        if block and ci % block:
            ci = block
        wq = quantize_weight_only(torch.randn(co, ci, generator=g), bits, block, zero_point=zp, scale_dtype=dtype)
        x = _x(n, ci, h, w, dtype, channels_last, seed=case)
        bias = torch.randn(co, generator=g).to(dtype) if case != 1 else None
        y = conv2d_weight_only(x, prepack(wq), bias)
        ref = F.conv2d(x.double(), wq.dequantize().reshape(co, ci, 1, 1), None if bias is None else bias.double())
        assert y.shape == (n, co, h, w) and y.dtype == dtype
        _layout_ok(y, x)
        _close(y, ref)


def test_weight_only_op_unbatched_strided_and_same_padding():
    wq = quantize_weight_only(torch.randn(64, 128), 4, 64, scale_dtype=torch.bfloat16)
    p = prepack(wq)
    x = _x(3, 128, 5, 9)
    ref = F.conv2d(x.double(), wq.dequantize().reshape(64, 128, 1, 1))
    _close(conv2d_weight_only(x[1], p), ref[1])  # (Ci, H, W) -> (Co, H, W)
    assert conv2d_weight_only(x[1], p).shape == (64, 5, 9)
    strided = x[:, :, ::2, 1:]  # neither NCHW- nor channels_last-contiguous: one copy, NCHW output
    _close(conv2d_weight_only(strided, p), ref[:, :, ::2, 1:])
    assert conv2d_weight_only(strided, p).is_contiguous()
    for padding in ("valid", "same", (0, 0)):
        assert torch.equal(conv2d_weight_only(x, p, padding=padding), conv2d_weight_only(x, p))


def test_channels_last_rows_are_a_view_nchw_rows_a_copy():
    x = _x(2, 64, 3, 5, channels_last=True)
    r = to_rows(x)
    assert r.rows.shape == (30, 64) and r.rows.data_ptr() == x.data_ptr() and r.channels_last
    nchw = x.contiguous()
    r2 = to_rows(nchw)
    assert r2.rows.data_ptr() != nchw.data_ptr() and not r2.channels_last and torch.equal(r2.rows, r.rows)


# ------------------------------------------------------------------------------------ int8 op
def _int8_ref(x, w_q, w_scale, bias, act, input_scale, activation):
    """float64: the reference-quantized activation, dequantized, through F.conv2d with the dequantized weight."""
    n, c, h, w = x.shape
    rows = x.permute(0, 2, 3, 1).reshape(-1, c).float()
    if act == "static":
        qa = quantize_static(rows, input_scale.reshape(()), None, dtype=torch.int8)
    else:
        qa = quantize_activation(rows, dtype=torch.int8,
                                 granularity="per_tensor" if act == "dynamic_per_tensor" else "per_token")
    xd = (qa.a.double() * qa.scale_a.double()).reshape(n, h, w, c).permute(0, 3, 1, 2)
    wd = w_q.double() * w_scale.double().reshape(-1, 1, 1, 1)
    y = F.conv2d(xd, wd, None if bias is None else bias.double())
    return {None: y, "relu": y.relu(), "relu6": y.clamp(0, 6)}[activation]


@pytest.mark.parametrize("act", ["dynamic", "static", "dynamic_per_tensor"])
@pytest.mark.parametrize("activation", [None, "relu", "relu6"])
@pytest.mark.parametrize("channels_last", [False, True])
def test_int8_op_matches_float64_conv(act, activation, channels_last):
    g = torch.Generator().manual_seed(len(act) + 3 * len(activation or ""))
    for case in range(3):
        n, h, w = [int(v) for v in torch.randint(1, 8, (3,), generator=g)]
        ci, co = 16 * int(torch.randint(1, 9, (1,), generator=g)), 8 * int(torch.randint(1, 9, (1,), generator=g))
        w_q = torch.randint(-127, 128, (co, ci, 1, 1), generator=g, dtype=torch.int8)
        w_scale = torch.rand(1, co, generator=g) * 0.02 + 1e-3
        x = (_x(n, ci, h, w, channels_last=channels_last, seed=case) * 3)
        bias = torch.randn(co, generator=g).bfloat16() if case != 2 else None
        input_scale = (x.abs().amax().float() / 127).reshape(1) if act == "static" else None
        y = conv2d_int8(x, w_q, w_scale, bias, act=act, input_scale=input_scale, activation=activation)
        assert y.shape == (n, co, h, w) and y.dtype == torch.bfloat16
        _layout_ok(y, x)
        _close(y, _int8_ref(x, w_q, w_scale, bias, act, input_scale, activation))
        if activation is not None:
            assert y.min() >= 0 and (activation != "relu6" or y.max() <= 6)


def test_int8_op_2d_weight_float32_input_and_out_dtype():
    w_q = torch.randint(-127, 128, (32, 64), dtype=torch.int8)
    w_scale = torch.full((1, 32), 0.01)
    x = torch.randn(2, 64, 3, 3)
    y = conv2d_int8(x, w_q, w_scale)
    assert y.dtype == torch.float32 and y.shape == (2, 32, 3, 3)  # computed with bf16 output, returned as fp32
    assert torch.equal(conv2d_int8(x, w_q.reshape(32, 64, 1, 1), w_scale), y)
    assert conv2d_int8(x.half(), w_q, w_scale, out_dtype=torch.bfloat16).dtype == torch.bfloat16
    _close(y, _int8_ref(x, w_q.reshape(32, 64, 1, 1), w_scale, None, "dynamic", None, None))


# ------------------------------------------------------------------------------------ typed errors
def _raises(call, arg, unsupported, one_by_one=True):
    with pytest.raises(InvalidArgumentError) as e:
        call()
    assert e.value.argument == arg, (arg, str(e.value))
    assert isinstance(e.value, UnsupportedConvError) == unsupported, (arg, type(e.value))
    if unsupported and one_by_one:  # the weight-only convs: 1x1 only
        assert "1x1" in str(e.value) and "stride 1" in str(e.value)


def test_op_errors_name_the_argument():
    p = prepack(quantize_weight_only(torch.randn(64, 128), 4, 64, scale_dtype=torch.bfloat16))
    p9 = prepack(quantize_weight_only(torch.randn(64, 64 * 9), 4, 64, scale_dtype=torch.bfloat16))  # a 3x3 64->64
    x = _x(2, 128, 3, 3)
    w_q = torch.zeros(64, 128, 1, 1, dtype=torch.int8)
    s = torch.ones(1, 64)
    # weight-only convs other than the 1x1 GEMM run the implicit GEMM (tests/test_conv_wo.py); what it does not serve:
    unsupported = [
        (lambda: conv2d_weight_only(x, p, groups=2), "groups"),
    ]
    p20 = prepack(quantize_weight_only(torch.randn(64, 192), 4, 64, scale_dtype=torch.bfloat16))  # 3x3 over 20 ch.
    # W8A8 convs other than 1x1 run the implicit GEMM (tests/test_conv_int8.py); what it does not serve:
    w3 = torch.zeros(64, 128, 3, 3, dtype=torch.int8).contiguous(memory_format=torch.channels_last)
    int8_unsupported = [
        (lambda: conv2d_int8(x, w_q, s, groups=4), "groups"),
        (lambda: conv2d_int8(x, w_q, s, stride=9), "stride"),
        (lambda: conv2d_int8(x, w3, s, padding=200), "padding"),
        (lambda: conv2d_int8(x, w3, s, act="dynamic_asym"), "act"),
        (lambda: conv2d_int8(x, w3, s, activation="silu"), "activation"),
        (lambda: conv2d_int8(x, torch.zeros(64, 128, 1, 4, dtype=torch.int8).contiguous(
            memory_format=torch.channels_last), s, padding="same"), "padding"),  # uneven 'same'
    ]
    invalid = [
        (lambda: conv2d_weight_only(x.float(), p), "x"),                          # weight-only takes fp16/bf16
        (lambda: conv2d_weight_only(x[:, :64], p), "x"),                          # channels != K
        (lambda: conv2d_weight_only(x.reshape(2, 128, 9), p), "x"),               # 3-D is (Ci, H, W): Ci = 2
        (lambda: conv2d_weight_only(x.reshape(-1), p), "x"),
        (lambda: conv2d_weight_only(x, "p"), "w_packed"),
        (lambda: conv2d_weight_only(x, p, torch.zeros(63).bfloat16()), "bias"),
        (lambda: conv2d_weight_only(x, p, padding="full"), "padding"),
        (lambda: conv2d_weight_only(x, p, stride=(1, 1, 1)), "stride"),
        (lambda: conv2d_weight_only(x, p, groups=0), "groups"),
        (lambda: conv2d_weight_only(x, p, kernel_size=3), "w_packed"),             # a 1x1 weight for a 3x3
        (lambda: conv2d_weight_only(_x(2, 64, 5, 5), p9), "x"),                   # K = 9 Ci without kernel_size=3
        (lambda: conv2d_weight_only(_x(2, 20, 5, 5), p20, kernel_size=3), "x"),  # Ci % 8
        (lambda: conv2d_weight_only(x, p, kernel_size=3, stride=2, padding="same"), "padding"),
        (lambda: conv2d_weight_only(x, p, kernel_size=0), "kernel_size"),
        (lambda: conv2d_weight_only(x, p, padding=-1), "padding"),
        (lambda: conv2d_int8(x, w_q.float(), s), "weight"),
        (lambda: conv2d_int8(x, torch.zeros(64, 128, 1, dtype=torch.int8), s), "w_q"),
        (lambda: conv2d_int8(x[:, :64], w_q, s), "x"),
        (lambda: conv2d_int8(x, w_q, s, act="static"), "input_scale"),
        (lambda: conv2d_int8(x, w_q, s, act="bogus"), "act"),
        (lambda: conv2d_int8(x, w_q, s, activation="tanh"), "activation"),
        (lambda: conv2d_int8(_x(1, 24, 2, 2), torch.zeros(32, 24, 1, 1, dtype=torch.int8), torch.ones(1, 32)), "w_q"),
        (lambda: conv2d_int8(_x(1, 32, 2, 2), torch.zeros(36, 32, 1, 1, dtype=torch.int8), torch.ones(1, 36)), "w_q"),
    ]
    invalid += [
        (lambda: conv2d_int8(x, torch.zeros(64, 128, 3, 3, dtype=torch.int8), s), "w_q"),  # not channels_last
        (lambda: conv2d_int8(_x(1, 24, 5, 5), torch.zeros(32, 24, 3, 3, dtype=torch.int8).contiguous(
            memory_format=torch.channels_last), torch.ones(1, 32)), "w_q"),            # Ci % 16
        (lambda: conv2d_int8(x, w3, s, act="static"), "input_scale"),
        (lambda: conv2d_int8(x, w3, s, padding="full"), "padding"),
        (lambda: conv2d_int8(x, w3, s, padding="same", stride=2), "padding"),
        (lambda: conv2d_int8(_x(1, 128, 2, 2), w3, s), "x"),                              # no output pixel
    ]
    for call, arg in unsupported:
        _raises(call, arg, True, one_by_one=False)
    for call, arg in int8_unsupported:
        _raises(call, arg, True, one_by_one=False)
    for call, arg in invalid:
        _raises(call, arg, False)
    # channels the weight-only layout cannot hold never become a PackedWeight
    with pytest.raises(InvalidArgumentError) as e:
        prepack(quantize_weight_only(torch.randn(64, 96), 4, 32))
    assert e.value.argument == "weight" and "64" in str(e.value)


def test_layer_errors_name_the_argument():
    cases = [
        (lambda: cnn.WeightOnlyConv2d(128, 64, groups=2), "groups", None),
        (lambda: cnn.WeightOnlyConv2d(128, 64, 3, padding_mode="reflect"), "padding_mode", None),
        (lambda: cnn.WeightOnlyConv2d(128, 64, 3, stride=2, padding="same"), "padding", False),
        (lambda: cnn.WeightOnlyConv2d(128, 64, 0), "kernel_size", False),
        (lambda: cnn.Int8Conv2d(128, 64, 3, padding=200), "padding", None),
        (lambda: cnn.Int8Conv2d(128, 64, groups=2), "groups", None),
        (lambda: cnn.WeightOnlyConv2d.from_float(nn.Conv2d(128, 64, 3, padding=1, groups=2)), "groups", None),
        (lambda: cnn.WeightOnlyConv2d.from_float(nn.Conv2d(128, 64, 3, padding_mode="circular")), "padding_mode", None),
        (lambda: cnn.Int8Conv2d.from_float(nn.Conv2d(128, 64, 1, stride=9)), "stride", None),
        (lambda: cnn.Int8Conv2d.from_float(nn.Conv2d(128, 64, 3), act="dynamic_asym"), "act", None),
        (lambda: cnn.Int8Conv2d.from_float(nn.Conv2d(128, 64, 3), activation="silu"), "activation", None),
        (lambda: cnn.Int8Conv2d(24, 32, 3), "in_channels", False),
        (lambda: cnn.Int8Conv2d(64, 36, 3, stride=2), "out_channels", False),
        (lambda: cnn.WeightOnlyConv2d(20, 64), "in_channels", False),
        (lambda: cnn.WeightOnlyConv2d(20, 64, 3), "in_channels", False),
        (lambda: cnn.WeightOnlyConv2d(128, 48), "out_channels", False),
        (lambda: cnn.WeightOnlyConv2d(128, 48, 3), "out_channels", False),
        (lambda: cnn.WeightOnlyConv2d(128, 64, block_size=48), "block_size", False),
        (lambda: cnn.WeightOnlyConv2d(128, 64, bits=3), "bits", False),
        (lambda: cnn.WeightOnlyConv2d(0, 64), "in_channels", False),
        (lambda: cnn.Int8Conv2d(24, 32), "in_channels", False),
        (lambda: cnn.Int8Conv2d(32, 36), "out_channels", False),
        (lambda: cnn.Int8Conv2d(32, 32, act="bogus"), "act", False),
        (lambda: cnn.Int8Conv2d.from_float(nn.Conv2d(32, 32, 1), activation="tanh"), "activation", False),
        (lambda: cnn.Int8Conv2d.from_float(nn.Linear(32, 32)), "conv", False),
        (lambda: cnn.WeightOnlyConv2d.from_float(nn.Conv1d(128, 64, 1)), "conv", False),
        (lambda: cnn.Int8Conv2d(32, 32, dtype=torch.float32), "dtype", False),
    ]
    for call, arg, unsupported in cases:  # None: an implicit-GEMM refusal (UnsupportedConvError, any wording)
        _raises(call, arg, unsupported is not False, one_by_one=unsupported is not None)
    assert "in_channels=20" in str(pytest.raises(InvalidArgumentError, cnn.WeightOnlyConv2d, 20, 64).value)


# ------------------------------------------------------------------------------------ layers
def _conv(ci=128, co=64, bias=True, dtype=torch.bfloat16, seed=0, **kw):
    torch.manual_seed(seed)
    return nn.Conv2d(ci, co, 1, bias=bias, **kw).to(dtype)


@pytest.mark.parametrize("bits,block,zp", FORMATS)
@pytest.mark.parametrize("bias", [True, False])
def test_weight_only_layer_round_trip(bits, block, zp, bias):
    conv = _conv(bias=bias)
    layer = cnn.WeightOnlyConv2d.from_float(conv, bits=bits, block_size=block, zero_point=zp)
    wq = quantize_weight_only(conv.weight.detach().reshape(64, 128), bits, block, zero_point=zp,
                              scale_dtype=torch.bfloat16)
    for x in (_x(3, 128, 5, 7), _x(1, 128, 1, 9, channels_last=True), _x(2, 128, 4, 4)[0]):
        y = layer(x)
        assert torch.equal(y, conv2d_weight_only(x, prepack(wq), None if conv.bias is None else conv.bias.detach()))
        _layout_ok(y, x)
    x = _x(3, 128, 5, 7)
    with torch.no_grad():
        f = conv(x).double()
    assert ((layer(x).double() - f).norm() / f.norm()).item() < (0.15 if bits == 4 else 2e-2)
    sd = layer.state_dict()
    assert set(sd) == {"linear.qweight", "linear.scales"} | ({"linear.bias"} if bias else set()) | (
        {"linear.zeros"} if zp else set())
    empty = cnn.WeightOnlyConv2d(128, 64, bias=bias, bits=bits, block_size=block, zero_point=zp)
    assert torch.equal(empty(x), torch.zeros(3, 64, 5, 7).bfloat16())  # an empty layer is a zero weight
    empty.load_state_dict(sd)
    assert torch.equal(empty(x), layer(x))
    r = repr(layer)
    assert "128, 64, kernel_size=(1, 1)" in r and f"bits={bits}" in r and f"zero_point={zp}" in r
    assert layer.block_size == block and layer.dtype == torch.bfloat16
    layer.half()  # casts reach the child: bias and output dtype follow, scales keep their dtype
    assert layer.dtype == torch.float16 and layer.linear.scales.dtype == torch.bfloat16
    assert layer(x.half()).dtype == torch.float16 and layer(x.float()).dtype == torch.float32


@pytest.mark.parametrize("act", cnn.Int8Linear.ACTS)
@pytest.mark.parametrize("activation", [None, "relu6"])
def test_int8_layer_round_trip(act, activation):
    conv = _conv(ci=64, co=40)
    x = _x(2, 64, 3, 5) * 2
    static = act.startswith("static")
    layer = cnn.Int8Conv2d.from_float(conv, act=act, calibration_data=[x] if static else None, activation=activation)
    assert layer.act == act and layer.activation == activation
    ref_lin = cnn.Int8Linear(64, 40, act=act, activation=activation)
    ref_lin.load_state_dict(layer.linear.state_dict())  # the same buffers as an Int8Linear over the pixels
    for xx in (x, x.contiguous(memory_format=CL)):
        y = layer(xx)
        _layout_ok(y, xx)
        assert torch.equal(y.permute(0, 2, 3, 1).reshape(-1, 40), ref_lin(to_rows(xx).rows))
    with torch.no_grad():
        f = conv(x).double()
        f = f if activation is None else f.clamp(0, 6)
    assert ((layer(x).double() - f).norm() / f.norm()).item() < 3e-2
    fresh = cnn.Int8Conv2d(64, 40, act=act, activation=activation)
    fresh.load_state_dict(layer.state_dict())
    assert torch.equal(fresh(x), layer(x))
    assert "linear.weight" in layer.state_dict() and f"act={act!r}" in repr(layer)


def test_layer_keeps_float_dtype_rules_and_device_moves():
    conv = _conv(dtype=torch.float32)
    layer = cnn.Int8Conv2d.from_float(conv)
    assert layer.dtype == torch.bfloat16 and layer.bias.dtype == torch.bfloat16
    x = torch.randn(2, 128, 3, 3)
    assert layer(x).dtype == torch.float32
    wo = cnn.WeightOnlyConv2d.from_float(conv, bits=8, block_size=None)
    assert wo.dtype == torch.bfloat16 and wo(x).dtype == torch.float32
    meta = cnn.WeightOnlyConv2d(128, 64, device="meta")
    meta.to_empty(device="cpu")
    meta.load_state_dict(cnn.WeightOnlyConv2d.from_float(conv).state_dict())
    assert all(b.device.type == "cpu" for b in meta.buffers())


@pytest.mark.parametrize("channels_last", [False, True])
def test_layers_compile_fullgraph(channels_last):
    conv = _conv()
    x = _x(2, 128, 3, 5, channels_last=channels_last)
    for layer in (cnn.WeightOnlyConv2d.from_float(conv, bits=4, block_size=128),
                  cnn.Int8Conv2d.from_float(conv, activation="relu")):
        compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
        y = compiled(x)
        assert torch.equal(y, layer(x))
        _layout_ok(y, x)


# ------------------------------------------------------------------------------------ quantize_model
def _net(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Conv2d(64, 128, 1), nn.ReLU(), nn.Conv2d(128, 128, 3, padding=1),
                         nn.Conv2d(128, 64, 1, bias=False), nn.Conv2d(64, 128, 1, stride=2),
                         nn.Conv2d(128, 40, 1), nn.Flatten(), nn.Linear(40 * 4 * 4, 64)).bfloat16()


def test_quantize_model_covers_1x1_convs_and_reports_the_rest():
    base = _net()
    x = _x(2, 64, 8, 8, seed=3)
    with torch.no_grad():
        ref = base(x).double()
    expect = {
        "w4a16": (["0", "2", "3", "4", "7"], {"5": "out_channels=40"}),  # 3x3 / strided / Ci = 64: implicit GEMM
        "w8a16": (["0", "2", "3", "4", "7"], {"5": "out_channels=40"}),
        "w8a8-int8": (["0", "2", "3", "4", "5", "7"], {}),
        "w8a8-int8-asym": (["0", "3", "5", "7"], {"2": "act='dynamic_asym'", "4": "act='dynamic_asym'"}),
        "w8a8-fp8": (["7"], {k: "no w8a8-fp8 convolution layer" for k in ("0", "2", "3", "4", "5")}),
    }
    for scheme, (quantized, skipped) in expect.items():
        m = copy.deepcopy(base)
        report = cnn.quantize_model(m, scheme)
        assert report.quantized == quantized, scheme
        assert set(report.skipped) == set(skipped), scheme
        for name, why in skipped.items():
            assert report.skipped[name].startswith(why), (scheme, report.skipped[name])
        cls = cnn.WeightOnlyConv2d if scheme.endswith("a16") else cnn.Int8Conv2d
        assert all(isinstance(m[int(i)], cls) for i in quantized if i != "7")
        assert (type(m[2]) is nn.Conv2d) == (scheme not in ("w8a8-int8", "w4a16", "w8a16"))
        if scheme.endswith("a16"):  # the 3x3, the strided 1x1 and the Ci = 64 one (K padded to 128 for w4a16)
            assert m[3].is_gemm
            assert all(not m[i].is_gemm for i in (2, 4)) and m[0].is_gemm == (scheme == "w8a16")
        with torch.no_grad():
            y = m(x).double()
        assert ((y - ref).norm() / ref.norm()).item() < (0.3 if scheme == "w4a16" else 6e-2), scheme
        if scheme == "w8a8-int8":
            assert "6 layers quantized, 0 skipped" in str(report) and m[2].implicit_gemm and m[4].implicit_gemm


def test_calibrate_and_static_scheme_cover_1x1_convs():
    base = _net()
    x = _x(2, 64, 8, 8, seed=4)
    cals = cnn.calibrate(base, [x, x * 0.5])
    assert set(cals) == {"0", "2", "3", "4", "5", "7"}  # the 3x3 and the strided conv too (implicit GEMM)
    assert cals["0"].num_observed == 2 * x.numel()
    m = copy.deepcopy(base)
    report = cnn.quantize_model(m, "w8a8-int8-static", calibration={k: v for k, v in cals.items() if k != "5"})
    assert report.quantized == ["0", "2", "3", "4", "7"]
    assert report.skipped["5"] == "no calibration data reached this layer"
    assert m[0].act == "static" and float(m[0].linear.input_scale) == pytest.approx(
        x.float().abs().max().item() / 127, rel=1e-6)
    direct = cnn.Int8Conv2d.from_float(base[0], act="static", calibration_data=[x, x * 0.5])
    assert torch.equal(direct.linear.input_scale, m[0].linear.input_scale)
    with torch.no_grad():
        assert torch.isfinite(m(x)).all()


def test_package_exports():
    assert cutlass_gemm.conv2d_weight_only is conv2d_weight_only and cutlass_gemm.conv2d_int8 is conv2d_int8
    assert issubclass(UnsupportedConvError, InvalidArgumentError) and issubclass(UnsupportedConvError, ValueError)
    assert {"WeightOnlyConv2d", "Int8Conv2d", "conv_unservable_reason"} <= set(cnn.__all__)
