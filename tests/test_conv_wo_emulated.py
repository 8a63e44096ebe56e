"""The weight-only implicit-GEMM convolution (wo_gemm.cuh compiled with kConv, wo_conv.cuh's variants) run by the CPU
emulator (tests/wo_emu/emu.cpp, the same source as host C++): every element against a float64 convolution with the
exactly dequantized weight, on small odd shapes: padding, strides, dilation, non-square filters, K padded past
Kh*Kw*Ci, row blocks, split-K, zero points, both activation dtypes. x sits between NaN guard bands, so a read
outside the input (a wrong tap address) turns the output NaN."""
import ctypes

import pytest
import torch
import torch.nn.functional as F

from cutlass_gemm.quant import prepack, quantize_weight_only, unpack
from cutlass_gemm.quant.conv_weight import conv_packed_k, conv_weight_from_matrix, conv_weight_matrix

from test_weight_only_emulated import emu  # noqa: F401  (the emulator library fixture)

GUARD = 64  # elements of NaN on each side of x (128 bytes: x stays 16-byte aligned)


def _out_size(size, k, s, p, d):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _run_conv(lib, variant, x, packed, bias, kernel, stride, padding, dilation, splits=1):
    b, c, h, w = x.shape
    kh, kw = kernel
    p, q = (_out_size(h, kh, stride[0], padding[0], dilation[0]), _out_size(w, kw, stride[1], padding[1], dilation[1]))
    flat = torch.full((2 * GUARD + x.numel(),), float("nan"), dtype=x.dtype)
    flat[GUARD:GUARD + x.numel()] = x.permute(0, 2, 3, 1).reshape(-1)
    x_ptr = flat.data_ptr() + GUARD * x.element_size()
    m, n = b * p * q, packed.n
    out = torch.full((m, n), float("nan"), dtype=x.dtype)
    scales = packed.scales.to(x.dtype)
    zeros = None if packed.zeros is None else packed.zeros.to(x.dtype)
    shift = 30 if packed.group_size is None else packed.group_size.bit_length() - 1
    geom = (ctypes.c_int * 13)(h, w, c, p, q, kw, stride[0], stride[1], padding[0], padding[1], dilation[0],
                                dilation[1], kh * kw * c)
    ptr = (lambda t: None if t is None else t.data_ptr())
    lib.emu_run_conv.restype = ctypes.c_int
    lib.emu_run_conv.argtypes = [ctypes.c_int] * 5 + [ctypes.c_void_p] * 6 + [ctypes.c_int] * 5 + [ctypes.c_void_p]
    rc = lib.emu_run_conv(variant, int(x.dtype == torch.bfloat16), packed.bits, int(packed.zeros is not None), 1,
                          x_ptr, packed.qweight.data_ptr(), scales.data_ptr(), ptr(zeros), ptr(bias), out.data_ptr(),
                          m, n, packed.k, shift, splits, geom)
    assert rc == 0, f"emulator returned {rc}"
    return out.reshape(b, p, q, n).permute(0, 3, 1, 2), flat


# (variant, batch, C, H, W, Co, kernel, stride, padding, dilation, bits, group, zero point, dtype, splits)
CASES = [
    (1, 1, 16, 6, 7, 64, (3, 3), (1, 1), (1, 1), (1, 1), 4, 64, False, torch.float16, 1),     # K 144 -> 192
    (28, 1, 24, 7, 5, 32, (3, 3), (2, 2), (1, 1), (1, 1), 8, 32, True, torch.bfloat16, 1),    # K 216 -> 224
    (2, 2, 64, 5, 6, 96, (1, 1), (2, 2), (0, 0), (1, 1), 4, None, False, torch.bfloat16, 1),  # strided 1x1
    (3, 2, 16, 9, 8, 32, (5, 3), (1, 2), (2, 1), (2, 1), 4, 128, True, torch.float16, 1),     # K 240 -> 256
    (1, 1, 64, 6, 6, 32, (3, 3), (1, 1), (0, 0), (1, 1), 8, 128, False, torch.bfloat16, 2),   # split-K, K 576 -> 640
    (3, 1, 8, 11, 13, 64, (3, 3), (1, 1), (1, 1), (1, 1), 4, 32, False, torch.float16, 1),    # C = 8: taps per chunk row
]


@pytest.mark.parametrize("case", CASES, ids=[f"v{c[0]}-{c[6][0]}x{c[6][1]}-s{c[7][0]}-int{c[10]}" for c in CASES])
def test_conv_form_matches_float64(emu, case):  # noqa: F811
    variant, b, c, h, w, co, kernel, stride, padding, dilation, bits, group, zp, dtype, splits = case
    g = torch.Generator().manual_seed(hash(case) % 1000)
    weight = torch.randn(co, c, *kernel, generator=g) * 0.2
    mat = conv_weight_matrix(weight, group)
    assert mat.shape[1] == conv_packed_k(kernel[0], kernel[1], c, group)
    packed = prepack(quantize_weight_only(mat, bits, group, zero_point=zp, scale_dtype=dtype))
    x = torch.randn(b, c, h, w, generator=g).to(dtype)
    bias = (torch.randn(co, generator=g) * 0.1).to(dtype)
    y, flat = _run_conv(emu, variant, x, packed, bias, kernel, stride, padding, dilation, splits)
    wd = conv_weight_from_matrix(unpack(packed).dequantize(torch.float64), kernel[0], kernel[1], c)
    ref = F.conv2d(x.double(), wd, bias.double(), stride, padding, dilation)
    assert y.shape == ref.shape
    assert torch.isfinite(y).all(), "NaN in the output: an element not written, or a read outside x"
    err = ((y.double() - ref).norm() / ref.norm()).item()
    tol = 2 ** -7 if dtype == torch.bfloat16 else 2 ** -9
    assert err <= tol, f"relative error {err:.3g} > {tol:.3g}"
    # every element, not only the norm: the worst one within a few output roundings of its magnitude
    worst = ((y.double() - ref).abs() / (ref.abs() + ref.abs().mean())).max().item()
    assert worst <= 8 * tol, f"worst element error {worst:.3g}"
    assert torch.isnan(flat[:GUARD]).all() and torch.isnan(flat[-GUARD:]).all()


def test_padding_columns_read_zero_activations(emu):  # noqa: F811
    """Weights planted in the padding columns (past Kh*Kw*Ci) must not count: the kernel reads zero x there."""
    c, co, kernel = 16, 32, (3, 3)
    g = torch.Generator().manual_seed(7)
    weight = torch.randn(co, c, *kernel, generator=g) * 0.2
    mat = conv_weight_matrix(weight, 64)  # 144 real columns, 192 packed
    planted = mat.clone()
    planted[:, 144:] = 5.0
    x = torch.randn(1, c, 5, 5, generator=g).to(torch.float16)
    outs = []
    for m in (mat, planted):
        packed = prepack(quantize_weight_only(m, 8, 64, scale_dtype=torch.float16))
        outs.append(_run_conv(emu, 1, x, packed, None, kernel, (1, 1), (1, 1), (1, 1))[0])
    ref = F.conv2d(x.double(), weight.double(), None, 1, 1)
    for y in outs:  # group 64: columns 128..191 hold 16 real ones and the 48 planted; both within int8 rounding
        assert torch.isfinite(y).all()
        assert ((y.double() - ref).norm() / ref.norm()).item() < 2e-2
