"""The int8 implicit-GEMM convolution family on the CPU: `Conv2dConfig` (names, validation, the tile table),
the emitter (deterministic text, the pieces the kernel needs), `generate_conv`, the family row and cache key;
the op `cutlass_gemm::conv2d_int8_igemm` (its float64 reference path) and `conv2d_int8` / `Int8Conv2d` on k x k,
strided, padded and dilated convs against an independent float64 F.conv2d over the reference-quantized x and
the dequantized weight (random shapes, odd H/W, NCHW / channels_last, unbatched, float32 in); every typed
error; state_dict round trips, torch.compile(fullgraph=True), opcheck of the op's fake impl."""
import pytest
import torch
import torch.nn.functional as F
from torch import nn

import cutlass_gemm.nn as cnn
from cutlass_gemm import UnsupportedConvError, conv2d_int8
from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.kernels import conv2d as kc
from cutlass_gemm.kernels.conv2d import Conv2dConfig, default_configs, resnet_configs, select_config
from cutlass_gemm.kernels.families import family_of
from cutlass_gemm.ops.conv_igemm import check_igemm, conv2d_int8_igemm, igemm_unsupported_reason
from cutlass_gemm.quant import quantize_activation

CL = torch.channels_last


def _x(n, c, h, w, dtype=torch.bfloat16, channels_last=False, seed=0):
    x = torch.randn(n, c, h, w, generator=torch.Generator().manual_seed(seed)).to(dtype)
    return x.contiguous(memory_format=CL) if channels_last else x


def _weight(co, ci, kh, kw, seed=1):
    g = torch.Generator().manual_seed(seed)
    w_q = torch.randint(-127, 128, (co, ci, kh, kw), generator=g, dtype=torch.int8).contiguous(memory_format=CL)
    w_scale = (torch.rand(1, co, generator=g) * 0.02 + 1e-3).float()
    return w_q, w_scale


def _reference(x, w_q, w_scale, bias, stride, padding, dilation, activation, static_scale=None):
    """float64 F.conv2d of the reference-quantized x (per tensor) and the dequantized weight."""
    x4 = x.unsqueeze(0) if x.dim() == 3 else x
    rows = x4.permute(0, 2, 3, 1).reshape(-1, x4.shape[1]).float()
    if static_scale is None:
        qa = quantize_activation(rows, granularity="per_tensor")
        q, s = qa.a, qa.scale_a
    else:
        s = static_scale.reshape(())
        q = torch.clamp(torch.round(rows * (1.0 / s)), -128, 127)
    xq = (q.double() * s.double()).reshape(x4.shape[0], x4.shape[2], x4.shape[3], -1).permute(0, 3, 1, 2)
    w = w_q.double() * w_scale.double().reshape(-1, 1, 1, 1)
    y = F.conv2d(xq, w, None if bias is None else bias.double(), stride, padding, dilation)
    if activation == "relu":
        y = torch.relu(y)
    elif activation == "relu6":
        y = torch.clamp(y, 0, 6)
    return y.squeeze(0) if x.dim() == 3 else y


def _close(y, ref, rtol=1e-2):
    err = (y.double() - ref).abs()
    assert torch.isfinite(y).all()
    assert (err <= rtol * ref.abs() + rtol * ref.abs().max()).all(), err.max().item()


# ------------------------------------------------------------------------------------ config + emission
def test_config_names_parse_back_and_validate():
    cfgs = default_configs()
    assert len(cfgs) == 54 and len({c.name for c in cfgs}) == 54 and len(resnet_configs()) == 24
    for c in cfgs:
        assert Conv2dConfig.from_name(c.name) == c and Conv2dConfig.from_dict(c.to_dict()) == c
        assert family_of(c).name == "conv2d" and c.generated_subdir == "sm90_conv"
    assert Conv2dConfig(activation="relu6").name == "sm90_conv2d_fprop_int8_bf16_relu6_t128x128x128_c1x1x1_s0"
    for bad in (dict(sm=80), dict(out_dtype="f32"), dict(activation="silu"), dict(tile=(256, 128, 128)),
                dict(tile=(128, 256, 128)), dict(tile=(128, 128, 32)), dict(cluster=(3, 1, 1)), dict(stages=1)):
        with pytest.raises(ValueError, match=f"Conv2dConfig.{next(iter(bad))}"):
            Conv2dConfig(**bad)
    with pytest.raises(ValueError):
        Conv2dConfig.from_name("sm90_int8_bf16_scaled_bias_token_channel_t128x128x128_c1x1x1_pingpong_s0_a16x16x8")


def test_select_config_by_shape():
    narrow = select_config("bf16", "relu", 32 * 56 * 56, 64, 64)                       # narrow Co, Ci 64
    assert (narrow.tile, narrow.cluster, narrow.stages) == ((128, 64, 64), (2, 1, 1), 4)
    assert select_config("bf16", "none", 32 * 56 * 56, 64, 256).stages == 0              # narrow Co, Ci 256
    assert select_config("bf16", "none", 32 * 28 * 28, 128, 128).tile == (128, 128, 128)
    assert select_config("bf16", "none", 7 * 7, 512, 512).tile == (64, 128, 128)          # batch 1, 7x7
    assert select_config("f16", "relu6", 4096, 256, 48).tile == (128, 128, 64)
    assert all(select_config("bf16", a, m, co, ci) in resnet_configs() for a in ("none", "relu")
               for m in (49, 10 ** 5) for co in (64, 512) for ci in (64, 256))


def test_emitted_source_is_deterministic_and_complete():
    pytest.importorskip("cutlass_library")
    from cutlass_gemm.kernels.emit_conv import emit_conv_source
    cfg = Conv2dConfig(activation="relu6", tile=(64, 128, 64))
    src = emit_conv_source(cfg)
    assert src == emit_conv_source(cfg)
    for piece in ("cg_conv_launch", "cg_conv_workspace_size", "cg_kernel_name", "KernelImplicitTmaWarpSpecializedSm90",
                  "cutlass::conv::Operator::kFprop", "Shape<_64, _128, Shape<_64>>", "cg_act::ReLU6", "Sm90RowBroadcast",
                  "Sm90ScalarBroadcast", "cutlass::layout::TensorNHWC", "kCrossCorrelation", f'"{cfg.name}"',
                  "cuTensorMapEncodeIm2col(", "cuTensorMapEncodeTiled("):
        assert piece in src, piece
    assert "gemm_universal_adapter.h" not in src  # its CUTLASS 2 GemmUniversal makes ConvUniversal ambiguous
    plain = emit_conv_source(Conv2dConfig())
    body = plain.split("}  // namespace cg_act")[-1]
    assert "cg_act::ReLU" not in body  # no activation node: only the scale guard's reduction names cg_act
    assert "Sm90ScalarBroadcast<float, ScalarStride, 2, cg_act::GuardScale>" in body
    assert "int cg_abi_version() { return 3; }" in plain


def test_generate_conv_and_cache_key(tmp_path):
    pytest.importorskip("cutlass_library")
    from cutlass_gemm.kernels.generate import generate_conv
    from cutlass_gemm.runtime import build
    cfgs = resnet_configs()[:2]
    paths = generate_conv(cfgs, tmp_path)
    assert sorted(p.name for p in paths) == sorted(f"{c.name}.cu" for c in cfgs)
    assert (tmp_path / "sm90_conv" / "manifest.json").is_file()
    generate_conv(cfgs[:1], tmp_path)  # prune drops the other
    assert not (tmp_path / "sm90_conv" / f"{cfgs[1].name}.cu").exists()
    key = cfgs[0].cache_key(cutlass_version="4.2", nvcc_version="13.0", flags=("-O3",))
    assert key != cfgs[1].cache_key(cutlass_version="4.2", nvcc_version="13.0", flags=("-O3",))
    assert build.generator_fingerprint(cfgs[0]) != build.generator_fingerprint(None)


# ------------------------------------------------------------------------------------ op + conv2d_int8 (CPU reference)
CASES = [  # (n, ci, h, w, co, k, stride, padding, dilation)
    (2, 64, 9, 11, 16, (3, 3), 1, 1, 1),
    (1, 128, 7, 5, 24, (3, 3), 2, 1, 1),
    (3, 192, 10, 13, 32, (5, 3), (2, 1), (2, 0), 1),
    (2, 64, 12, 12, 64, (3, 3), 1, 2, 2),
    (1, 64, 8, 8, 40, (1, 1), 2, 0, 1),          # 1x1 stride 2 (ResNet downsample): implicit GEMM
    (2, 64, 6, 9, 8, (1, 1), 1, 1, 1),           # 1x1 padded
    (1, 64, 5, 5, 16, (7, 7), 1, 3, 1),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("channels_last", [False, True])
def test_int8_conv_matches_float64(case, channels_last):
    n, ci, h, w, co, k, stride, padding, dilation = case
    x = _x(n, ci, h, w, channels_last=channels_last, seed=sum(case[:4]))
    w_q, w_scale = _weight(co, ci, *k)
    bias = torch.randn(co).bfloat16()
    for act, activation in (("dynamic", None), ("dynamic_per_tensor", "relu"), ("static", "relu6")):
        scale = (x.float().abs().amax() / 100).reshape(1) if act == "static" else None
        y = conv2d_int8(x, w_q, w_scale, bias, act=act, input_scale=scale, activation=activation, stride=stride,
                        padding=padding, dilation=dilation)
        ref = _reference(x, w_q, w_scale, bias, stride, padding, dilation, activation, scale)
        assert y.shape == ref.shape and y.dtype == torch.bfloat16
        assert y.is_contiguous(memory_format=CL if channels_last else torch.contiguous_format)
        _close(y, ref)


def test_unbatched_float32_same_padding_and_fp16():
    x = _x(1, 64, 9, 7, dtype=torch.float32)[0]
    w_q, w_scale = _weight(16, 64, 3, 3)
    y = conv2d_int8(x, w_q, w_scale, padding="same", dilation=2)
    assert y.dtype == torch.float32 and y.shape == (16, 9, 7)
    _close(y, _reference(x, w_q, w_scale, None, 1, 2, 2, None))
    yh = conv2d_int8(x.half(), w_q, w_scale, torch.zeros(16).half(), stride=2, padding=1)
    assert yh.dtype == torch.float16 and yh.shape == (16, 5, 4)


def test_non_finite_input_gives_nan_not_plausible_output():
    x = _x(1, 64, 6, 6)
    x[0, 3, 2, 2] = float("nan")
    w_q, w_scale = _weight(8, 64, 3, 3)
    for act, scale in (("dynamic", None), ("static", torch.ones(1))):
        assert torch.isnan(conv2d_int8(x, w_q, w_scale, act=act, input_scale=scale, padding=1)).all()


def test_op_direct_and_its_errors():
    xq = torch.randint(-128, 128, (2, 7, 9, 64), dtype=torch.int8)
    w = torch.randint(-127, 128, (16, 3, 3, 64), dtype=torch.int8)
    sx, sw, b = torch.tensor([0.02]), torch.rand(16) * 0.01, torch.randn(16).bfloat16()
    y = conv2d_int8_igemm(xq, w, sx, sw, b, (2, 1), (1, 1), (1, 2), "relu", torch.bfloat16)
    assert y.shape == (2, 4, 7, 16)  # NHWC out
    ref = F.conv2d(xq.permute(0, 3, 1, 2).double(), w.permute(0, 3, 1, 2).double(), None, (2, 1), (1, 1), (1, 2))
    ref = torch.relu(ref * 0.02 * sw.double().reshape(1, -1, 1, 1) + b.double().reshape(1, -1, 1, 1))
    _close(y.permute(0, 3, 1, 2), ref.to(torch.float32).double())
    bad = [
        (lambda: conv2d_int8_igemm(xq.float(), w, sx, sw), "x"),
        (lambda: conv2d_int8_igemm(xq.permute(0, 2, 1, 3), w, sx, sw), "x"),
        (lambda: conv2d_int8_igemm(xq, w.permute(0, 2, 1, 3), sx, sw), "w"),
        (lambda: conv2d_int8_igemm(xq, w[..., :32].contiguous(), sx, sw), "x"),
        (lambda: conv2d_int8_igemm(xq, w, torch.ones(2), sw), "scale_x"),
        (lambda: conv2d_int8_igemm(xq, w, sx, torch.ones(8)), "w_scale"),
        (lambda: conv2d_int8_igemm(xq, w, sx, sw, b.half()), "bias"),
        (lambda: conv2d_int8_igemm(xq, w, sx, sw, out_dtype=torch.float32), "out_dtype"),
        (lambda: conv2d_int8_igemm(xq, w, sx, sw, activation="gelu"), "activation"),
        (lambda: conv2d_int8_igemm(xq[..., :48].contiguous(), w[..., :48].contiguous(), sx, sw), "w"),  # Ci % 64
        (lambda: conv2d_int8_igemm(xq, w[:12].contiguous(), sx, sw[:12]), "w"),                        # Co % 8
        (lambda: conv2d_int8_igemm(xq, w, sx, sw, stride=(9, 1)), "stride"),
    ]
    for call, arg in bad:
        with pytest.raises(InvalidArgumentError) as e:
            call()
        assert e.value.argument == arg, (arg, str(e.value))
    assert igemm_unsupported_reason((3, 3), (1, 1), (1, 1), (1, 1), 2, 64, 64)[0] == "groups"
    assert igemm_unsupported_reason((3, 3), (1, 1), (1, 1), (1, 1), 1, 3, 64)[0] == "in_channels"  # a 7x7 stem
    assert check_igemm(xq, w, sx, sw, None, [1, 1], [0, 0], [1, 1], None, torch.float16) == (5, 7)


def test_op_opcheck_and_fake():
    xq = torch.randint(-128, 128, (1, 5, 6, 64), dtype=torch.int8)
    w = torch.randint(-127, 128, (8, 3, 3, 64), dtype=torch.int8)
    args = (xq, w, torch.tensor([0.02]), torch.rand(8), torch.randn(8).half(), [2, 2], [1, 1], [1, 1], "relu6",
            torch.float16)
    torch.library.opcheck(torch.ops.cutlass_gemm.conv2d_int8_igemm.default, args,
                          test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_static"))


# ------------------------------------------------------------------------------------ layer
@pytest.mark.parametrize("static", [False, True])
def test_layer_from_float_round_trip_and_accuracy(static):
    torch.manual_seed(0)
    conv = nn.Conv2d(64, 32, 3, stride=2, padding=1, bias=True).bfloat16()
    x = _x(2, 64, 11, 9, channels_last=True, seed=5)
    layer = cnn.Int8Conv2d.from_float(conv, act="static" if static else "dynamic",
                                      calibration_data=[x] if static else None, activation="relu")
    assert layer.implicit_gemm and layer.act == ("static" if static else "dynamic_per_tensor")
    w = layer.linear.weight
    assert w.shape == (32, 9 * 64) and w.dtype == torch.int8
    # the flattened weight is the KRSC filter: its row r*Kw*Ci + s*Ci + c is w_q[co, c, r, s]
    assert torch.equal(w.view(32, 3, 3, 64).permute(0, 3, 1, 2) * 1.0,
                       torch.round(conv.weight.detach().float() / layer.linear.weight_scale.reshape(-1, 1, 1, 1))
                       .clamp(-127, 127))
    y = layer(x)
    with torch.no_grad():
        ref = torch.relu(conv(x)).double()
    assert y.dtype == x.dtype and y.shape == ref.shape and y.is_contiguous(memory_format=CL)
    assert ((y.double() - ref).norm() / ref.norm()).item() < 3e-2
    fresh = cnn.Int8Conv2d(64, 32, 3, stride=2, padding=1, act="static" if static else "dynamic", activation="relu")
    fresh.load_state_dict(layer.state_dict())
    assert set(layer.state_dict()) == {"linear.weight", "linear.weight_scale", "linear.bias"} | (
        {"linear.input_scale"} if static else set())
    assert torch.equal(fresh(x), y)
    assert "implicit_gemm" in repr(layer)


def test_layer_compiles_fullgraph_and_keeps_1x1_gemm_path():
    torch.manual_seed(0)
    conv = nn.Conv2d(64, 16, 3, padding=1).bfloat16()
    layer = cnn.Int8Conv2d.from_float(conv, activation="relu6")
    x = _x(2, 64, 7, 7, seed=2)
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    assert torch.equal(compiled(x), layer(x))
    one = cnn.Int8Conv2d.from_float(nn.Conv2d(32, 16, 1).bfloat16())
    assert not one.implicit_gemm and one.act == "dynamic" and one.linear.weight.shape == (16, 32)


def test_layer_errors():
    cases = [
        (lambda: cnn.Int8Conv2d(64, 64, 3, groups=2), "groups", True),
        (lambda: cnn.Int8Conv2d(3, 64, 7, stride=2, padding=3), "in_channels", False),   # ResNet's stem
        (lambda: cnn.Int8Conv2d(32, 64, 3), "in_channels", False),                       # Ci % 64
        (lambda: cnn.Int8Conv2d(64, 12, 3), "out_channels", False),
        (lambda: cnn.Int8Conv2d(64, 64, 3, act="dynamic_asym"), "act", True),
        (lambda: cnn.Int8Conv2d(64, 64, 3, activation="gelu_tanh"), "activation", True),
        (lambda: cnn.Int8Conv2d.from_float(nn.Conv2d(64, 64, 3, padding_mode="reflect", padding=1)), "padding", True),
    ]
    for call, arg, unsupported in cases:
        with pytest.raises(InvalidArgumentError) as e:
            call()
        assert e.value.argument == arg and isinstance(e.value, UnsupportedConvError) == unsupported, str(e.value)
    stem = nn.Conv2d(3, 64, 7, stride=2, padding=3)
    assert "Ci = 3" in cnn.conv_unservable_reason(stem)


def test_capability_constants():
    assert kc.CI_ALIGN == 64 and kc.CO_ALIGN == 8 and kc.TILE_KS == (64, 128)


def test_resnet50_quantize_model_on_cpu():
    """The whole network on the CPU reference path (small input): every conv but the 7x7 Ci = 3 stem becomes an
    Int8Conv2d (1x1 stride 1 on the GEMM, the rest on the implicit GEMM), the output stays close to fp32."""
    import copy
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    from resnet50 import resnet50
    model, _ = resnet50()
    x = torch.randn(2, 3, 64, 64, generator=torch.Generator().manual_seed(0)).contiguous(memory_format=CL)
    with torch.no_grad():
        ref = model(x).double()
        q = copy.deepcopy(model).bfloat16()
        report = cnn.quantize_model(q, "w8a8-int8")
        y = q(x.bfloat16()).double()
    assert list(report.skipped) == ["conv1"] and len(report.quantized) == 53
    kinds = [m.implicit_gemm for m in q.modules() if isinstance(m, cnn.Int8Conv2d)]
    assert kinds.count(True) == 16 + 3 and kinds.count(False) == 33  # 3x3s and strided 1x1 downsamples
    assert ((y - ref).norm() / ref.norm()).item() < 5e-2


def test_committed_sources_match_the_generator(tmp_path):
    """Drift check for generated/sm90_conv (tools/generate_kernels.py --conv rewrites it); no machine paths."""
    pytest.importorskip("cutlass_library")
    import re
    from pathlib import Path
    from cutlass_gemm.kernels.generate import generate_conv
    generate_conv(default_configs(), tmp_path)
    committed, fresh = Path(__file__).resolve().parents[1] / "generated" / "sm90_conv", tmp_path / "sm90_conv"
    assert sorted(p.name for p in committed.iterdir()) == sorted(p.name for p in fresh.iterdir())
    stale = [p.name for p in fresh.iterdir() if p.read_text() != (committed / p.name).read_text()]
    assert not stale, f"stale {stale}: run tools/generate_kernels.py --conv"
    src = (fresh / f"{default_configs()[0].name}.cu").read_text()
    assert not re.search(r"/(home|root|tmp|work)/|\d{4}-\d{2}-\d{2}", src)
