"""GPU: the weight-only implicit-GEMM convolution (runtime/csrc/wo_conv.cuh through ops/conv_wo.py and
nn.WeightOnlyConv2d). Every compiled variant x format x dtype on odd geometries (padding, strides, dilation,
non-square filters, K padded past Kh*Kw*Ci, row blocks, split-K), every output element against a float64 F.conv2d
with the dequantized weight, over memory poisoned with NaN first; the op at the heuristic's variant from batch 1 to
32 in both memory formats; torch.library.opcheck; the layer under torch.compile(fullgraph=True), in a CUDA graph and
with no host sync; the announced fallback; a CPU-quantized layer moved to the GPU; ResNet-50 under w4a16 / w8a16
(every conv but the Ci = 3 stem). Run with `pytest -m gpu`. Kernels: the torch extension only (nothing built on
first use beyond it)."""
import copy
import sys
import warnings
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import cutlass_gemm.nn as cnn
from cutlass_gemm import conv2d_weight_only
from cutlass_gemm.ops import WeightOnlyFallbackWarning, conv_wo, wo_heuristics
from cutlass_gemm.quant import prepack, quantize_weight_only, unpack
from cutlass_gemm.quant.conv_weight import conv_weight_from_matrix, conv_weight_matrix
from cutlass_gemm.runtime import extension

from gpu_helpers import capture, eager_without_sync, replays_match_eager
from test_conv import _layout_ok
from test_weight_only_gpu import _poison

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from resnet50 import resnet50  # noqa: E402

pytestmark = pytest.mark.gpu
CL = torch.channels_last
FORMATS = [(4, 128, False), (4, 32, True), (8, None, False), (8, 64, True)]
# (N, Ci, H, W, Co, kernel, stride, padding, dilation)
SHAPES = [
    (1, 64, 14, 14, 64, (3, 3), (1, 1), (1, 1), (1, 1)),     # K 576 (-> 640 at g128)
    (2, 24, 9, 7, 96, (3, 3), (2, 2), (1, 1), (1, 1)),       # K 216 padded
    (1, 16, 11, 13, 32, (5, 3), (1, 2), (2, 1), (2, 1)),     # non-square, dilation
    (3, 256, 7, 7, 128, (1, 1), (2, 2), (0, 0), (1, 1)),     # strided 1x1
    (1, 512, 7, 7, 512, (3, 3), (1, 1), (1, 1), (1, 1)),     # K 4608, 49 rows: split-K
    (4, 32, 17, 19, 64, (3, 3), (1, 1), (0, 0), (1, 1)),     # 1140 rows: many row blocks
]


def _weights(co, ci, kernel, bits, group, zp, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(co, ci, *kernel, generator=g) * (ci * kernel[0] * kernel[1]) ** -0.5
    packed = prepack(quantize_weight_only(conv_weight_matrix(w, group), bits, group, zero_point=zp, scale_dtype=dtype),
                     device="cuda")
    wd = conv_weight_from_matrix(unpack(packed).dequantize(torch.float64), kernel[0], kernel[1], ci).cuda()
    return packed, wd


def _check(y, ref, what, rtol=1e-2):
    """Every element within rtol of itself or of its output pixel's largest |value|; a NaN fails (unwritten)."""
    y = y.double()
    assert torch.isfinite(y).all(), f"{what}: {int((~torch.isfinite(y)).sum())} non-finite (unwritten?) elements"
    scale = ref.abs().amax(dim=1, keepdim=True)
    bad = (y - ref).abs() > rtol * ref.abs() + rtol * scale
    assert not bad.any(), f"{what}: {int(bad.sum())} elements off, max error {(y - ref).abs().max().item():.3g}"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}x{s[2]}x{s[3]}-{s[4]}-k{s[5][0]}{s[5][1]}")
@pytest.mark.parametrize("bits,group,zp", FORMATS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_every_variant_against_float64(shape, bits, group, zp, dtype):
    ext = extension.load()
    assert ext is not None, "the extension must build on a GPU machine"
    n, ci, h, w, co, k, s, p, d = shape
    packed, wd = _weights(co, ci, k, bits, group, zp, dtype, seed=ci + co)
    g = torch.Generator(device="cuda").manual_seed(1)
    x = torch.randn(n, h, w, ci, device="cuda", generator=g).to(dtype)
    bias = (torch.randn(co, device="cuda", generator=g) * 0.1).to(dtype)
    ref = F.conv2d(x.permute(0, 3, 1, 2).double(), wd, bias.double(), s, p, d)
    geometry = [*k, *s, *p, *d]
    for variant in wo_heuristics.CONV_VARIANTS:
        for b in (bias, None):
            _poison(ref.numel(), dtype)
            y = ext.wo_conv(x, packed.qweight, packed.scales, packed.zeros, b, bits, group or 0, co, geometry, 0,
                            variant)
            want = ref if b is not None else ref - bias.double().reshape(1, -1, 1, 1)
            _check(y.permute(0, 3, 1, 2), want, f"variant {variant} bias={b is not None}")


@pytest.mark.parametrize("batch", [1, 8, 32, 64])  # 64: past the kernel's work bound
@pytest.mark.parametrize("channels_last", [False, True])
def test_op_at_the_chosen_variant(batch, channels_last):
    packed, wd = _weights(128, 64, (3, 3), 4, 128, False, torch.float16)
    x = torch.randn(batch, 64, 28, 28, device="cuda").half()
    x = x.contiguous(memory_format=CL) if channels_last else x
    _poison(batch * 128 * 14 * 14, torch.float16)
    m = batch * 14 * 14
    want = "mma_igemm" if wo_heuristics.conv_uses_kernel(m, 128, packed.k) else "dequant_cudnn"
    assert conv_wo.weight_only_conv_backend(x, 128, packed.k, m) == want
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeightOnlyFallbackWarning)  # kernel or dequantize + cuDNN: no warning
        y = conv2d_weight_only(x, packed, None, stride=2, padding=1, kernel_size=3)
    _layout_ok(y, x)
    _check(y, F.conv2d(x.double(), wd, None, 2, 1), f"batch {batch}")


def test_opcheck_and_typed_errors():
    packed, _ = _weights(64, 32, (3, 3), 4, 64, True, torch.bfloat16)
    x = torch.randn(2, 9, 10, 32, device="cuda").bfloat16()
    bias = torch.randn(64, device="cuda").bfloat16()
    torch.library.opcheck(torch.ops.cutlass_gemm.conv2d_weight_only_igemm,
                          (x, packed.qweight, packed.scales, packed.zeros, bias),
                          {"bits": 4, "group_size": 64, "n": 64, "geometry": [3, 3, 1, 2, 1, 1, 1, 1]})
    from cutlass_gemm.errors import InvalidArgumentError
    with pytest.raises(InvalidArgumentError, match="^x"):
        conv2d_weight_only(x.permute(0, 3, 1, 2).float(), packed, kernel_size=3)  # fp32 x
    with pytest.raises(InvalidArgumentError, match="^bias"):
        conv2d_weight_only(x.permute(0, 3, 1, 2), packed, bias.half(), kernel_size=3)


def test_layer_compile_graph_no_sync_and_cpu_quantized():
    torch.manual_seed(0)
    conv = nn.Conv2d(64, 64, 3, padding=1, bias=True).bfloat16()
    on_cpu = cnn.WeightOnlyConv2d.from_float(conv, bits=4, block_size=128)
    layer = cnn.WeightOnlyConv2d.from_float(copy.deepcopy(conv).cuda(), bits=4, block_size=128)
    on_cpu.cuda()
    for a, b in zip(on_cpu.state_dict().values(), layer.state_dict().values()):
        assert torch.equal(a, b)
    x = torch.randn(1, 64, 14, 14, device="cuda").bfloat16().contiguous(memory_format=CL)
    with torch.no_grad():
        eager = eager_without_sync(layer, x)
        assert torch.equal(on_cpu(x), eager)
        torch.testing.assert_close(torch.compile(layer, fullgraph=True)(x), eager, rtol=0, atol=0)
        replays_match_eager(layer, x.clone(memory_format=torch.preserve_format),
                            [torch.randn(1, 64, 14, 14, device="cuda",
                                         generator=torch.Generator(device="cuda").manual_seed(seed)).bfloat16()
                             for seed in range(3)])


def test_fallback_is_announced_and_right(monkeypatch):
    packed, wd = _weights(64, 32, (3, 3), 8, None, False, torch.float16)
    x = torch.randn(2, 32, 10, 10, device="cuda").half()
    fast = conv2d_weight_only(x, packed, None, padding=1, kernel_size=3)
    monkeypatch.setattr(wo_heuristics, "conv_row_limit", lambda variant: 0)
    with pytest.warns(WeightOnlyFallbackWarning, match="conv2d_weight_only"):
        y = conv2d_weight_only(x, packed, None, padding=1, kernel_size=3)
    assert conv_wo.weight_only_conv_backend(x, 64, packed.k, 200) == "dequant_fallback"
    ref = F.conv2d(x.double(), wd, None, 1, 1)
    _check(y, ref, "fallback")
    _check(fast, ref, "kernel")


def _dequantized_model(base, q):
    """`base` with each quantized conv's weight replaced by the exact dequantized one (float32): the model the kernels
    compute, so that its difference to the quantized model is the kernels' (and fp16 activations') alone."""
    ref = copy.deepcopy(base)
    with torch.no_grad():
        for name, layer in q.named_modules():
            if isinstance(layer, cnn.WeightOnlyConv2d):
                conv = ref.get_submodule(name)
                w = unpack(layer.linear.packed).dequantize(torch.float32)
                conv.weight.copy_(conv_weight_from_matrix(w, *layer.kernel_size, layer.in_channels).cuda())
    return ref


@pytest.mark.parametrize("scheme", ["w4a16", "w8a16"])
def test_resnet50_end_to_end(scheme):
    base, source = resnet50()
    base = base.cuda().eval().to(memory_format=CL)
    x = torch.randn(2, 3, 224, 224, device="cuda").contiguous(memory_format=CL)
    with torch.no_grad():
        ref = base(x).double()
        q = copy.deepcopy(base).half()
        report = cnn.quantize_model(q, scheme)
        y = q(x.half()).double()
        yh = copy.deepcopy(base).half()(x.half()).double()
        yd = _dequantized_model(base, q)(x).double()
    convs = [n for n, m in base.named_modules() if isinstance(m, nn.Conv2d)]
    assert set(report.skipped) == {"conv1", "fc"} and "in_channels=3" in report.skipped["conv1"], str(report)
    assert all(isinstance(q.get_submodule(n), cnn.WeightOnlyConv2d) for n in convs if n != "conv1")
    err = ((y - ref).norm() / ref.norm()).item()
    err_h = ((yh - ref).norm() / ref.norm()).item()
    err_d = ((y - yd).norm() / yd.norm()).item()
    print(f"ResNet-50 ({source}) {scheme}: rel. error vs fp32 {err:.3e} (fp16 model {err_h:.3e}); vs the fp32 model "
          f"with the dequantized weights {err_d:.3e}")
    # the quantization error itself compounds through 52 random-weight layers (int4 g128: ~0.5 at batch 1-32, H200
    # session54/call1); what the kernels add on top is fp16 rounding
    assert torch.isfinite(y).all() and err_d < 2e-2 and err < (0.6 if scheme == "w4a16" else 0.05)
    static_x = x.half().clone()
    with torch.no_grad():
        graph, out = capture(q, static_x)
        static_x.copy_(torch.randn_like(static_x))
        graph.replay()
        again = q(static_x).double()
        assert ((out.double() - again).norm() / again.norm()).item() < 1e-2


def _count_entry_calls(monkeypatch):
    """The variant of every call of the extension's `wo_conv_layer` from now on (the entry already loaded)."""
    calls = []

    class Counting:
        def __init__(self, ext):
            self.ext = ext

        def wo_conv_layer(self, *args):
            calls.append(args[-1])
            return self.ext.wo_conv_layer(*args)

    monkeypatch.setattr(conv_wo, "_fast_ext", Counting(conv_wo._fast_ext))
    return calls


def test_layer_eager_entry_matches_the_op(monkeypatch):
    """The layer's eager call (one C++ call, channels_last in and out) gives the op's bits, and serves only what it
    should: a channels_last x of the layer's dtype; NCHW x, another dtype and compiled calls take the op."""
    torch.manual_seed(3)
    conv = nn.Conv2d(64, 96, 3, stride=2, padding=1).half().cuda()
    layer = cnn.WeightOnlyConv2d.from_float(conv, bits=4, block_size=64)
    lin = layer.linear
    x = torch.randn(2, 64, 15, 17, device="cuda").half().contiguous(memory_format=CL)
    op = conv_wo.conv_forward(x, lin.qweight, lin.scales, lin.zeros, lin.bias, lin.bits, lin.group_size, 96,
                              layer.geometry, 64)
    layer(x)  # loads the extension into the entry
    calls = _count_entry_calls(monkeypatch)
    with torch.no_grad():
        y = layer(x)
        assert len(calls) == 1 and calls[0] > 0 and torch.equal(y, op) and y.is_contiguous(memory_format=CL)
        assert torch.equal(layer(x.contiguous()), op.contiguous()) and len(calls) == 1  # NCHW: the op
        assert layer(x.bfloat16()).dtype == torch.bfloat16 and len(calls) == 1        # another dtype: the op
        wd = conv_weight_from_matrix(unpack(lin.packed).dequantize(torch.float64), 3, 3, 64).cuda()
        _check(y, F.conv2d(x.double(), wd, lin.bias.double(), 2, 1), "eager entry")


@pytest.mark.parametrize("zp", [False, True])
@pytest.mark.parametrize("kernel,stride,pad", [(3, 2, 1), (1, 1, 0)])
def test_layer_eager_entry_dequant_route_matches_the_op(monkeypatch, zp, kernel, stride, pad):
    """Above the kernel's work bound the layer's eager C++ call dequantizes the weight and calls cuDNN itself (the op's
    "dequant_cudnn" route, without its Python; a 1x1 stride-1 conv as a GEMM over the pixel rows): the op's bits,
    channels_last out, K padded past Kh*Kw*Ci (Ci = 40: 360 -> 384 and 40 -> 128 at g128)."""
    torch.manual_seed(4)
    conv = nn.Conv2d(40, 64, kernel, stride=stride, padding=pad).half().cuda()
    layer = cnn.WeightOnlyConv2d.from_float(conv, bits=4, block_size=128, zero_point=zp)
    assert not layer.is_gemm
    lin = layer.linear
    x = torch.randn(96, 40, 45, 45, device="cuda").half().contiguous(memory_format=CL)
    p = (45 + 2 * pad - kernel) // stride + 1
    rows = 96 * p * p
    assert not wo_heuristics.conv_uses_kernel(rows, 64, lin.in_features)
    assert conv_wo._layer_plan(96, 40, 45, 45, 64, lin.in_features, layer.geometry) == conv_wo.DEQUANT_CUDNN
    _poison(rows * 64, torch.float16)
    op = conv_wo.conv_forward(x, lin.qweight, lin.scales, lin.zeros, lin.bias, lin.bits, lin.group_size, 64,
                              layer.geometry, 40)
    layer(x)
    calls = _count_entry_calls(monkeypatch)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", WeightOnlyFallbackWarning)
        _poison(rows * 64, torch.float16)
        y = layer(x)
        y_nobias = conv_wo.layer_fast_call(x, lin.qweight, lin.scales, lin.zeros, None, 4, 128, 64, layer.geometry, 40)
    assert calls == [conv_wo.DEQUANT_CUDNN] * 2 and y.is_contiguous(memory_format=CL) and torch.equal(y, op)
    wd = conv_weight_from_matrix(unpack(lin.packed).dequantize(torch.float64), kernel, kernel, 40).cuda()
    _check(y, F.conv2d(x.double(), wd, lin.bias.double(), stride, pad), "eager dequant route")
    _check(y_nobias, F.conv2d(x.double(), wd, None, stride, pad), "eager dequant route, no bias")
