"""CPU: the weight-only k x k / strided convolution (ops/conv_wo.py, nn.WeightOnlyConv2d off the 1x1 GEMM): the
weight matrix (quant/conv_weight.py), the op's float reference against float64 F.conv2d over odd geometries, the
memory-format rule, torch.library.opcheck, the layer's state_dict round trip, casts and torch.compile(fullgraph=True),
and that the variant table matches the compiled list. The kernel itself: tests/test_conv_wo_emulated.py (CPU
emulator) and tests/test_conv_wo_gpu.py."""
import re
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import cutlass_gemm.nn as cnn
from cutlass_gemm import conv2d_weight_only
from cutlass_gemm.ops import wo_heuristics
from cutlass_gemm.quant import prepack, quantize_weight_only, unpack
from cutlass_gemm.quant.conv_weight import conv_packed_k, conv_weight_from_matrix, conv_weight_matrix

from test_conv import FORMATS, _layout_ok, _x

CL = torch.channels_last
CSRC = Path(__file__).resolve().parents[1] / "cutlass_gemm" / "runtime" / "csrc"
# (Ci, Co, kernel, stride, padding, dilation, (N, H, W))
GEOMETRIES = [
    (64, 64, (3, 3), (1, 1), (1, 1), (1, 1), (2, 7, 9)),
    (24, 32, (3, 3), (2, 2), (1, 1), (1, 1), (1, 9, 8)),
    (16, 96, (5, 3), (1, 2), (2, 1), (2, 1), (2, 11, 6)),
    (128, 64, (1, 1), (2, 2), (0, 0), (1, 1), (3, 5, 7)),
    (40, 32, (1, 1), (1, 1), (0, 0), (1, 1), (1, 4, 4)),   # a 1x1 whose K is padded: the implicit GEMM
    (8, 32, (7, 7), (2, 2), (3, 3), (1, 1), (1, 13, 13)),
]


def test_weight_matrix_order_padding_and_inverse():
    w = torch.randn(32, 24, 3, 3)
    m = conv_weight_matrix(w, 128)
    assert m.shape == (32, conv_packed_k(3, 3, 24, 128)) == (32, 256)
    assert torch.equal(m[:, :216].reshape(32, 3, 3, 24), w.permute(0, 2, 3, 1)) and not m[:, 216:].any()
    assert torch.equal(conv_weight_from_matrix(m, 3, 3, 24), w)
    assert conv_packed_k(1, 1, 128, 128) == 128 and conv_packed_k(1, 1, 96, None) == 128
    assert conv_packed_k(3, 3, 64, 64) == 576 and conv_packed_k(3, 3, 64, 128) == 640


def test_conv_variants_match_the_compiled_list():
    text = (CSRC / "wo_conv.cuh").read_text()
    listed = re.search(r"kWoConvVariants\[\] = \{([^}]*)\}", text).group(1)
    assert tuple(int(v) for v in listed.split(",")) == wo_heuristics.CONV_VARIANTS
    cases = set(int(v) for v in re.findall(r"case (\d+): return wo_conv_kernel", text))
    assert cases == set(wo_heuristics.CONV_VARIANTS)
    for m in (1, 49, 196, 3136, 100352):
        for n in (32, 64, 512, 2048):
            for k in (64, 576, 4608):
                v = wo_heuristics.conv_variant(m, n, k)
                assert v in wo_heuristics.CONV_VARIANTS and m <= wo_heuristics.conv_row_limit(v)


@pytest.mark.parametrize("geo", GEOMETRIES, ids=lambda g: f"{g[0]}-{g[1]}-k{g[2][0]}x{g[2][1]}-s{g[3][0]}")
@pytest.mark.parametrize("bits,block,zp", FORMATS)
def test_op_matches_float64(geo, bits, block, zp):
    ci, co, k, s, p, d, (n, h, w) = geo
    g = torch.Generator().manual_seed(ci + co)
    weight = torch.randn(co, ci, *k, generator=g) * 0.1
    packed = prepack(quantize_weight_only(conv_weight_matrix(weight, block), bits, block, zero_point=zp,
                                          scale_dtype=torch.bfloat16))
    bias = torch.randn(co, generator=g).bfloat16()
    wd = conv_weight_from_matrix(unpack(packed).dequantize(torch.float64), k[0], k[1], ci)
    for x in (_x(n, ci, h, w), _x(n, ci, h, w, channels_last=True), _x(1, ci, h, w)[0]):
        y = conv2d_weight_only(x, packed, bias, s, p, d, kernel_size=k)
        ref = F.conv2d(x.double(), wd, bias.double(), s, p, d)
        assert y.dtype == x.dtype and y.shape == ref.shape
        _layout_ok(y, x)
        err = (y.double() - ref).abs()
        assert (err <= 1e-2 * ref.abs() + 1e-2 * ref.abs().max()).all()


def test_opcheck_cpu():
    weight = torch.randn(32, 16, 3, 3)
    packed = prepack(quantize_weight_only(conv_weight_matrix(weight, 64), 4, 64, scale_dtype=torch.bfloat16))
    x = torch.randn(2, 5, 6, 16).bfloat16()
    torch.library.opcheck(torch.ops.cutlass_gemm.conv2d_weight_only_igemm,
                          (x, packed.qweight, packed.scales, None, torch.randn(32).bfloat16()),
                          {"bits": 4, "group_size": 64, "n": 32, "geometry": [3, 3, 2, 1, 1, 1, 1, 1]})


@pytest.mark.parametrize("bits,block,zp", FORMATS)
def test_layer_round_trip_casts_and_compile(bits, block, zp):
    torch.manual_seed(1)
    conv = nn.Conv2d(48, 64, 3, stride=2, padding=1).bfloat16()
    layer = cnn.WeightOnlyConv2d.from_float(conv, bits=bits, block_size=block, zero_point=zp)
    assert not layer.is_gemm and layer.linear.in_features == conv_packed_k(3, 3, 48, block)
    assert layer.linear.qweight_mixed is None  # the implicit GEMM reads one layout: no mixed-input copy
    x = _x(2, 48, 9, 11)
    with torch.no_grad():
        f = conv(x).double()
    y = layer(x)
    assert ((y.double() - f).norm() / f.norm()).item() < (0.15 if bits == 4 else 2e-2)
    empty = cnn.WeightOnlyConv2d(48, 64, 3, 2, 1, bits=bits, block_size=block, zero_point=zp)
    assert torch.equal(empty(x), torch.zeros_like(y))
    empty.load_state_dict(layer.state_dict())
    assert torch.equal(empty(x), y)
    r = repr(layer)
    assert "kernel_size=(3, 3), stride=(2, 2), padding=(1, 1)" in r and "implicit_gemm=True" in r
    assert layer(x.float()).dtype == torch.float32 and layer(x.half()).dtype == torch.float16
    compiled = torch.compile(layer, fullgraph=True, backend="aot_eager")
    xc = x.contiguous(memory_format=CL)
    assert torch.equal(compiled(xc), layer(xc))


def test_quantize_model_takes_every_zero_padded_groups1_conv():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 32, 7, 2, 3), nn.Conv2d(32, 64, 3, padding="same"),
                        nn.Conv2d(64, 64, 3, groups=2, padding=1), nn.Conv2d(64, 64, 3, padding=1, padding_mode="reflect"),
                        nn.Conv2d(64, 32, 1, stride=2)).bfloat16()
    report = cnn.quantize_model(net, "w4a16")
    assert report.quantized == ["1", "4"]
    assert report.skipped["0"].startswith("in_channels=3 must be a multiple of 8")
    assert report.skipped["2"].startswith("groups=2") and report.skipped["3"].startswith("padding_mode='reflect'")
    assert net[1].padding == (1, 1) and net(_x(1, 3, 16, 16)).shape == (1, 32, 4, 4)


def test_layer_plan_routes_like_the_op():
    from cutlass_gemm.ops import conv_wo
    geo = (3, 3, 1, 1, 1, 1, 1, 1)
    assert conv_wo._layer_plan(1, 64, 56, 56, 64, 640, geo) == wo_heuristics.conv_variant(3136, 64, 640)
    # past CONV_IGEMM_MAX_MNK: dequantize + cuDNN, from the entry too (the op's route without its Python)
    assert conv_wo._layer_plan(64, 64, 56, 56, 64, 640, geo) == conv_wo.DEQUANT_CUDNN
    assert conv_wo._layer_plan(1, 64, 1, 1, 64, 640, (3, 3, 1, 1, 0, 0, 1, 1)) == 0  # no output pixel
    assert conv_wo._layer_plan(0, 64, 56, 56, 64, 640, geo) == 0                      # an empty batch
    assert conv_wo._layer_plan(1, 8, 16384, 1, 32, 64, (1, 1, 1, 1, 0, 0, 1, 1)) == 0  # the kernel's 16-bit rows
    x = _x(1, 64, 5, 5, channels_last=True)
    assert conv_wo.layer_fast_call(x, None, x, None, None, 4, 128, 64, geo, 64) is None  # CPU: never the entry


def test_benchmark_rows_cover_every_kxk_and_strided_resnet_conv():
    """`benchmark.py conv --weight-only --kxk` (tools/bench_conv_wo.py) times every ResNet-50 conv shape that is not a
    stride-1 1x1 GEMM: the seven 3x3 ones and the three strided downsamples."""
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import bench_conv_wo
    from resnet50 import RESNET50_CONVS
    assert bench_conv_wo.KXK == [s for s in RESNET50_CONVS if not (s[3] == 1 and s[4] == 1)]
    assert sum(s[3] == 3 for s in bench_conv_wo.KXK) == 7 and sum(s[3] == 1 for s in bench_conv_wo.KXK) == 3
