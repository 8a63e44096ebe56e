"""GPU: the 1x1 quantized convolutions (`conv2d_weight_only`, `conv2d_int8`, `WeightOnlyConv2d`, `Int8Conv2d`) on
the existing kernels, outputs poisoned with NaN first, every element against a float64 F.conv2d with the
dequantized weight (int8: of the reference-quantized activation), NCHW and channels_last; opcheck of the
GEMM ops on a channels_last pixel view; the layers under torch.compile(fullgraph=True), CUDA-graph capture
and replay, with no host sync in forward; CPU-quantized layers moved to the GPU. Run with `pytest -m gpu`.
Written with the CPU tests (tests/test_conv.py); part of every whole-suite run since (docs/testing.md).

Kernels they need, SM90 (only the existing op families; nothing new is compiled but these GEMMs):
- the extension's weight-only kernels (runtime/csrc/wo_gemm.cuh for M <= 64 pixels, wo_dequant.cuh for the
  fallback above): built with the torch extension;
- int8 GEMMs, per-token x per-channel: sm90_int8_bf16_scaled_bias_token_channel at t64x64x128, t64x128x128 and
  t128x128x128 and sm90_int8_bf16_scaled_token_channel_t64x64x128 (prebuilt set);
  sm90_int8_f16_scaled_bias_token_channel_t64x64x128 (default set, built on first use);
  sm90_int8_bf16_scaled_bias_relu_token_channel_t64x64x128 and ..._relu6_... (activation kernels, outside the
  default set: built on first use, about a minute each; the activation cases keep M <= 64 for that reason).
"""
import copy
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import cutlass_gemm.nn as cnn
from cutlass_gemm import conv2d_int8, conv2d_weight_only
from cutlass_gemm.ops import WeightOnlyFallbackWarning, quantize_per_token
from cutlass_gemm.ops.conv import to_rows
from cutlass_gemm.quant import prepack, quantize_weight_only

from test_conv import _int8_ref, _layout_ok
from gpu_helpers import eager_without_sync, replays_match_eager
from test_weight_only_gpu import _poison

pytestmark = pytest.mark.gpu
CL = torch.channels_last
FORMATS = [(bits, block, zp) for bits in (4, 8) for block in (None, 32, 128) for zp in (False, True)]
# (N, H, W): M = N*H*W pixels of 1, 35 and 63 (the small-M kernel; int8 tile 64x64), 126 (weight-only
# fallback; int8 tile 64x128) and 784 (int8 tile 128x128); odd sizes
SPATIAL = [(1, 1, 1), (1, 5, 7), (1, 7, 9), (2, 7, 9), (4, 14, 14)]


def _x(n, c, h, w, dtype, channels_last, seed=0):
    x = torch.randn(n, c, h, w, generator=torch.Generator().manual_seed(seed)).to(dtype).cuda()
    return x.contiguous(memory_format=CL) if channels_last else x


def _check(y, ref, what, rtol=1e-2):
    """Every element: within rtol of itself or of its output pixel's largest |value| (16-bit rounding of the
    weight and the output is ~4e-3 for bf16); a NaN (unwritten poisoned element) fails."""
    y2 = y.double().cpu()
    assert torch.isfinite(y2).all(), f"{what}: {int((~torch.isfinite(y2)).sum())} non-finite (unwritten?) elements"
    scale = ref.abs().amax(dim=1, keepdim=True)  # per output pixel (dim 1 is Co)
    bad = (y2 - ref).abs() > rtol * ref.abs() + rtol * scale
    assert not bad.any(), f"{what}: {int(bad.sum())} elements off, max error {(y2 - ref).abs().max().item():.3g}"


@pytest.mark.parametrize("bits,block,zp", FORMATS)
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("channels_last", [False, True])
def test_weight_only_conv_matches_float64(bits, block, zp, dtype, channels_last):
    g = torch.Generator().manual_seed(bits + (block or 0))
    ci, co = 256, 96
    wq = quantize_weight_only(torch.randn(co, ci, generator=g), bits, block, zero_point=zp, scale_dtype=dtype)
    p = prepack(wq, device="cuda")
    bias = torch.randn(co, generator=g).to(dtype)
    w64 = wq.dequantize().reshape(co, ci, 1, 1)
    for i, (n, h, w) in enumerate(SPATIAL):
        x = _x(n, ci, h, w, dtype, channels_last, seed=i)
        b = bias.cuda() if i % 2 == 0 else None
        _poison(n * h * w * co, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", WeightOnlyFallbackWarning)  # M > 64: the documented fallback
            y = conv2d_weight_only(x, p, b)
        assert y.shape == (n, co, h, w) and y.dtype == dtype and y.is_cuda
        _layout_ok(y, x)
        ref = F.conv2d(x.cpu().double(), w64, None if b is None else bias.double())
        _check(y, ref, f"int{bits} block {block} zp {zp} {dtype} {n}x{h}x{w} cl={channels_last}")


@pytest.mark.parametrize("act", ["dynamic", "static"])
@pytest.mark.parametrize("activation", [None, "relu", "relu6"])
@pytest.mark.parametrize("channels_last", [False, True])
def test_int8_conv_matches_float64(act, activation, channels_last):
    g = torch.Generator().manual_seed(len(act))
    ci, co = 192, 136  # Co not a multiple of the 64/128 tile
    w_q = torch.randint(-127, 128, (co, ci, 1, 1), generator=g, dtype=torch.int8)
    w_scale = torch.rand(1, co, generator=g) * 0.02 + 1e-3
    bias = torch.randn(co, generator=g).bfloat16()
    spatial = SPATIAL if activation is None else SPATIAL[:3]  # activation kernels: one tile (M <= 64)
    for i, (n, h, w) in enumerate(spatial):
        x = _x(n, ci, h, w, torch.bfloat16, channels_last, seed=i) * 3
        b = bias if i % 2 == 0 else None
        input_scale = (x.abs().amax().float() / 127).reshape(1) if act == "static" else None
        _poison(n * h * w * co, torch.bfloat16)
        y = conv2d_int8(x, w_q.cuda(), w_scale.cuda(), None if b is None else b.cuda(), act=act,
                        input_scale=input_scale, activation=activation)
        assert y.shape == (n, co, h, w) and y.dtype == torch.bfloat16
        _layout_ok(y, x)
        ref = _int8_ref(x.cpu(), w_q, w_scale, b, act, None if input_scale is None else input_scale.cpu(), activation)
        _check(y, ref, f"{act} {activation} {n}x{h}x{w} cl={channels_last}")


def test_int8_conv_fp16_output():
    w_q = torch.randint(-127, 128, (64, 128, 1, 1), dtype=torch.int8)
    w_scale = torch.full((1, 64), 0.01)
    bias = torch.randn(64).half()
    x = _x(1, 128, 5, 7, torch.float16, True)
    _poison(35 * 64, torch.float16)
    y = conv2d_int8(x, w_q.cuda(), w_scale.cuda(), bias.cuda())
    assert y.dtype == torch.float16
    _check(y, _int8_ref(x.cpu(), w_q, w_scale, bias, "dynamic", None, None), "fp16")


def test_opcheck_on_channels_last_pixel_rows():
    x = _x(2, 128, 3, 5, torch.bfloat16, True)
    rows = to_rows(x).rows
    assert rows.data_ptr() == x.data_ptr()  # the view the ops see: no copy
    p = prepack(quantize_weight_only(torch.randn(64, 128), 4, 128, scale_dtype=torch.bfloat16), device="cuda")
    bias = torch.randn(64, device="cuda").bfloat16()
    torch.library.opcheck(torch.ops.cutlass_gemm.weight_only_mm.default, (rows, p.qweight, p.scales, None, bias, None),
                          {"layout": p.layout, "bits": 4, "group_size": 128, "n": 64})
    q, s = quantize_per_token(rows)
    w = torch.randint(-127, 128, (64, 128), dtype=torch.int8, device="cuda")
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm.default,
                          (q, w.t(), s, torch.full((1, 64), 0.01, device="cuda"), torch.bfloat16, bias),
                          {"activation": "relu"})


def _layers():
    torch.manual_seed(0)
    conv = nn.Conv2d(256, 128, 1).cuda().bfloat16()
    return conv, [cnn.WeightOnlyConv2d.from_float(conv, bits=4, block_size=128),
                  cnn.Int8Conv2d.from_float(conv, act="dynamic", activation="relu")]


@pytest.mark.parametrize("channels_last", [False, True])
def test_layers_compile_cuda_graph_no_sync(channels_last):
    _, layers = _layers()
    x = _x(1, 256, 5, 7, torch.bfloat16, channels_last)  # M = 35: the small-M weight-only kernel
    for layer in layers:
        with torch.no_grad():
            eager = eager_without_sync(layer, x)
            compiled = torch.compile(layer, fullgraph=True)(x)
            # the same kernels through the registered ops (last-bit differences at most)
            torch.testing.assert_close(compiled, eager, rtol=1e-2, atol=1e-2)
            _layout_ok(compiled, x)
            replays_match_eager(layer, x.clone(memory_format=torch.preserve_format),
                                [_x(1, 256, 5, 7, torch.bfloat16, channels_last, seed=seed + 1) for seed in range(3)],
                                what=type(layer).__name__)


def test_cpu_quantized_model_moved_to_gpu_matches_gpu_quantized():
    torch.manual_seed(0)
    base = nn.Sequential(nn.Conv2d(128, 256, 1), nn.ReLU(), nn.Conv2d(256, 256, 3, padding=1),
                         nn.Conv2d(256, 128, 1)).bfloat16()
    x = torch.randn(2, 128, 6, 6).bfloat16().cuda().contiguous(memory_format=CL)
    with torch.no_grad():
        ref = copy.deepcopy(base).cuda()(x).double()
    for scheme in ("w4a16", "w8a16", "w8a8-int8"):
        on_cpu = copy.deepcopy(base)
        report = cnn.quantize_model(on_cpu, scheme)
        # both kinds serve the 3x3 too (implicit GEMMs)
        assert report.quantized == ["0", "2", "3"] and not report.skipped, scheme
        on_cpu.to("cuda")
        on_gpu = copy.deepcopy(base).cuda()
        cnn.quantize_model(on_gpu, scheme)
        for (k, a), b in zip(on_cpu.state_dict().items(), on_gpu.state_dict().values()):
            assert a.is_cuda and torch.equal(a, b), (scheme, k)
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", WeightOnlyFallbackWarning)  # M = 72 > 64
            assert torch.equal(on_cpu[0](x), on_gpu[0](x)), scheme
            y = on_gpu(x)
        assert torch.isfinite(y).all() and y.is_contiguous(memory_format=CL)
        assert ((y.double() - ref).norm() / ref.norm()).item() < (0.3 if scheme == "w4a16" else 5e-2), scheme
