"""Weight-only convolutions beyond the 1x1 GEMM: `cutlass_gemm::conv2d_weight_only_igemm` and
`conv2d_weight_only_kxk` (W4A16 / W8A16, any kernel size, stride, zero padding and dilation, groups 1).

    w2d = quant.conv_weight_matrix(conv.weight, 128)                 # (Co, K): (Kh, Kw, Ci) order, zero-padded
    y = conv2d_weight_only_kxk(x, prepack(quantize_weight_only(w2d, 4, 128)), bias, (3, 3), stride=1, padding=1)

Backends (`weight_only_conv_backend` says which one a call takes):
- "mma_igemm" (CUDA, the extension built, M * N * K up to `wo_heuristics.CONV_IGEMM_MAX_MNK`, M the output pixels):
  the weight-only GEMM's mma kernels compiled as an implicit GEMM (runtime/csrc/wo_conv.cuh): each x chunk is read
  from the NHWC input at its output pixel's tap, zero in the padding, so no im2col tensor is ever written; the weight
  tile is dequantized in registers (the GEMM's LOP3 / PRMT conversion), split-K and row blocks as the GEMM's. The
  variant comes from `wo_heuristics.conv_variant`. This is the memory-bound regime weight-only quantization is for
  (every batch-1 ResNet-50 conv).
- "dequant_cudnn" (CUDA, more work than that): the weight dequantized to x's dtype by one extension kernel, then
  `F.conv2d` (cuDNN; a 1x1 stride-1 conv, which comes here only with K padded past Ci: `F.linear` over the pixel rows):
  compute-bound convs, where cuDNN's fp16 kernels beat the mma.sync row-block tiles by 1.6-4.9x (H200, session 54).
  The measured route, not a warning. The layer's eager call takes both kernel routes from C++ (`layer_fast_call`).
- "dequant_fallback" (CUDA without the extension, or more output pixels than the kernel's grid holds): the same
  computation with torch ops where there is no extension, announced by a `WeightOnlyFallbackWarning`.
- "cpu_reference" (CPU): the float32 convolution with the dequantized weight, output in x's dtype.

Layout: the op takes and returns NHWC tensors ((B, H, W, C) contiguous -> (B, P, Q, Co)); `conv2d_weight_only_kxk`
takes x as (N, C, H, W) (a channels_last x without a copy, NCHW with one permute copy) and returns x's memory format,
as the 1x1 path does (ops/conv.py). Served: Ci % 8 == 0 (a 16-byte activation chunk stays in one tap), Co % 32 == 0,
groups 1, symmetric padding (an int, a pair, "valid", or an even "same"); else `UnsupportedConvError` /
`InvalidArgumentError` naming the argument before any kernel. No tensor value is read on the host: the op runs under
torch.compile(fullgraph=True) and in CUDA graphs.
"""
from __future__ import annotations

import functools
from typing import List, Optional, Sequence, Tuple, Union

import torch
import torch.nn.functional as F

from ..errors import InvalidArgumentError, UnsupportedConvError, warn_user
from ..quant.conv_weight import CHANNEL_ALIGN, conv_packed_k, conv_weight_from_matrix
from ..quant.prepack import LAYOUT, PackedWeight, check_packed, dequantize_packed
from ..runtime import extension
from . import wo_heuristics
from .conv import Pair, _pair, conv_padding
from .gemm import _eager_direct
from .weight_only import WeightOnlyFallbackWarning
from .wo_mixed import _aligned
from ._registry import define_op

Tensor = torch.Tensor
_HALF = (torch.float16, torch.bfloat16)


def out_size(size: int, kernel: int, stride: int, pad: int, dilation: int) -> int:
    """F.conv2d's output size along one dimension."""
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def wo_conv_unsupported_reason(in_channels: int, out_channels: int, groups: int = 1) -> Optional[Tuple[str, str]]:
    """(argument, why) when the implicit GEMM cannot serve these channel counts / groups, else None."""
    if groups != 1:
        return "groups", f"groups={groups}: only groups=1 weight-only convolutions are served"
    if in_channels % CHANNEL_ALIGN:
        return "in_channels", f"in_channels={in_channels} must be a multiple of {CHANNEL_ALIGN} (16-byte activation rows)"
    if out_channels % 32:
        return "out_channels", f"out_channels={out_channels} must be a multiple of 32 (the weight's column tiles)"
    return None


def conv_geometry(kernel_size: Pair, stride: Pair, padding: Union[Pair, str], dilation: Pair) -> List[int]:
    """[kh, kw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w] (the op's `geometry`), checked; typed errors name the
    argument."""
    ks, st, dil = _pair(kernel_size, "kernel_size"), _pair(stride, "stride"), _pair(dilation, "dilation")
    for name, v in (("kernel_size", ks), ("stride", st), ("dilation", dil)):
        if min(v) < 1:
            raise InvalidArgumentError(name, f"must be positive, got {v}")
    pad = conv_padding(padding, ks, st, dil)
    if min(pad) < 0:
        raise InvalidArgumentError("padding", f"must be >= 0, got {pad}")
    return [ks[0], ks[1], st[0], st[1], pad[0], pad[1], dil[0], dil[1]]


def _check(x, qweight, scales, zeros, bias, bits, group_size, n, geometry) -> Tuple[int, int, int, int]:
    """Validate an op call; returns (K of the packed weight, output pixels P, Q, rows B * P * Q)."""
    if not isinstance(x, Tensor) or x.dim() != 4:
        raise InvalidArgumentError("x", f"must be a (B, H, W, C) NHWC tensor, got "
                                        f"{tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__}")
    if x.dtype not in _HALF:
        raise InvalidArgumentError("x", f"dtype must be float16 or bfloat16, got {x.dtype}")
    if not x.is_contiguous():
        raise InvalidArgumentError("x", "must be contiguous in (B, H, W, C) order (NHWC)")
    if len(geometry) != 8:
        raise InvalidArgumentError("geometry", "must be [kh, kw, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w]")
    kh, kw, sh, sw, ph, pw, dh, dw = geometry
    b, h, w, c = x.shape
    why = wo_conv_unsupported_reason(c, n)
    if why is not None:
        raise InvalidArgumentError("x" if why[0] == "in_channels" else "n", why[1])
    k = conv_packed_k(kh, kw, c, group_size or None)
    check_packed(qweight, scales, zeros, layout=LAYOUT, bits=bits, group_size=group_size or None, n=n, k=k)
    for name, t in (("qweight", qweight), ("scales", scales), ("zeros", zeros), ("bias", bias)):
        if t is not None and t.device != x.device:
            raise InvalidArgumentError(name, f"must be on {x.device} like x, got {t.device}")
    if bias is not None and (bias.dtype != x.dtype or tuple(bias.shape) != (n,) or not bias.is_contiguous()):
        raise InvalidArgumentError("bias", f"must be a contiguous ({n},) {x.dtype} tensor")
    if x.numel() >= 1 << 31 or h + ph >= 1 << 14 or w + pw >= 1 << 14:  # the kernel's 32-bit offsets, 16-bit coordinates
        raise InvalidArgumentError("x", f"must hold < 2^31 elements with H + pad_h and W + pad_w < 16384, got shape "
                                        f"{tuple(x.shape)} and padding ({ph}, {pw})")
    p, q = out_size(h, kh, sh, ph, dh), out_size(w, kw, sw, pw, dw)
    if p < 1 or q < 1:
        raise InvalidArgumentError("x", f"a {h}x{w} input is smaller than the dilated {kh}x{kw} filter with padding")
    return k, p, q, b * p * q


def weight_only_conv_backend(x: Tensor, n: int, k: int, rows: int) -> str:
    """Which implementation a call of `rows` output pixels with N = `n` output channels and packed K = `k` on x's
    device takes: "mma_igemm", "dequant_cudnn", "dequant_fallback" or "cpu_reference" (module docstring). On CUDA this
    loads (first use: builds) the extension."""
    if not x.is_cuda:
        return "cpu_reference"
    if extension.load() is None:
        return "dequant_fallback"
    if not wo_heuristics.conv_uses_kernel(rows, n, k):
        return "dequant_cudnn"
    variant = wo_heuristics.conv_variant(rows, n, k)
    return "mma_igemm" if rows <= wo_heuristics.conv_row_limit(variant) else "dequant_fallback"


def _reference(x, qweight, scales, zeros, bias, bits, group_size, n, geometry, k, dtype):
    """The convolution with the dequantized weight in `dtype` (float32 on the CPU, x's dtype for the fallback)."""
    packed = PackedWeight(qweight, scales, zeros, None, LAYOUT, bits, group_size or None, n, k)
    ext = extension.load() if x.is_cuda else None
    if ext is not None:  # one kernel writes the dense weight
        w2d = ext.wo_dequant(_aligned(qweight, 16), scales.to(dtype), None if zeros is None else zeros.to(dtype),
                             bits, group_size, n, k)
    else:
        w2d = dequantize_packed(packed, dtype)
    return _dequant_conv(x.to(dtype), w2d.to(dtype), None if bias is None else bias.to(dtype), geometry).to(x.dtype)


def _dequant_conv(x: Tensor, w2d: Tensor, bias: Optional[Tensor], geometry: Sequence[int]) -> Tensor:
    """The convolution of an NHWC x with the dense (n, K) weight matrix (the "dequant_cudnn" route; the extension's
    wo_conv_layer takes the same calls): `F.conv2d` on its channels_last (n, C, kh, kw) view, or for a 1x1 stride-1
    unpadded conv `F.linear` over the pixel rows with the matrix's first C columns read in place (cuDNN would copy
    that strided weight first: 1.2-1.8x the time at ResNet-50's Ci = 64 1x1 convs with K padded to 128, H200,
    session 55 call 2). NHWC out."""
    kh, kw, sh, sw, ph, pw, dh, dw = geometry
    b, h, w, c = x.shape
    if (kh, kw, sh, sw, ph, pw) == (1, 1, 1, 1, 0, 0):
        return F.linear(x.reshape(b * h * w, c), w2d[:, :c], bias).reshape(b, h, w, w2d.shape[0])
    y = F.conv2d(x.permute(0, 3, 1, 2), conv_weight_from_matrix(w2d, kh, kw, c), bias, (sh, sw), (ph, pw), (dh, dw))
    return y.permute(0, 2, 3, 1).contiguous()


def _impl(x, qweight, scales, zeros, bias, *, bits, group_size, n, geometry):
    k, p, q, rows = _check(x, qweight, scales, zeros, bias, bits, group_size, n, geometry)
    if not x.is_cuda:
        return _reference(x, qweight, scales, zeros, bias, bits, group_size, n, geometry, k, torch.float32)
    if rows == 0:
        return x.new_empty((x.shape[0], p, q, n))
    if scales.dtype != x.dtype:  # the kernel reads scales in x's dtype
        scales = scales.to(x.dtype)
        zeros = None if zeros is None else zeros.to(x.dtype)
    backend = weight_only_conv_backend(x, n, k, rows)
    if backend == "mma_igemm":
        ext = extension.load()
        if x.data_ptr() % 16:
            x = x.clone()
        return ext.wo_conv(x, _aligned(qweight, 16), _aligned(scales, 16), _aligned(zeros, 16), _aligned(bias, 4),
                           bits, group_size, n, list(geometry), 0, wo_heuristics.conv_variant(rows, n, k))
    if backend == "dequant_cudnn":  # the measured route for large work (wo_heuristics.CONV_IGEMM_MAX_MNK)
        return _reference(x, qweight, scales, zeros, bias, bits, group_size, n, geometry, k, x.dtype)
    warn_user(f"cutlass_gemm conv2d_weight_only: {rows} output pixels (or no compiled extension): dequantizing the "
              f"int{bits} weight to {x.dtype} and calling F.conv2d (slow, documented fallback; see "
              f"weight_only_conv_backend)", WeightOnlyFallbackWarning)
    return _reference(x, qweight, scales, zeros, bias, bits, group_size, n, geometry, k, x.dtype)


_OP = define_op("conv2d_weight_only_igemm(Tensor x, Tensor qweight, Tensor scales, Tensor? zeros, Tensor? bias, *, "
                "int bits, int group_size, int n, int[] geometry) -> Tensor", _impl)


@torch.library.register_fake(_OP)
def _(x, qweight, scales, zeros, bias, *, bits, group_size, n, geometry):
    kh, kw, sh, sw, ph, pw, dh, dw = geometry
    return x.new_empty((x.shape[0], out_size(x.shape[1], kh, sh, ph, dh), out_size(x.shape[2], kw, sw, pw, dw), n))


def conv_igemm_call(x: Tensor, qweight: Tensor, scales: Tensor, zeros: Optional[Tensor], bias: Optional[Tensor],
                    bits: int, group_size: Optional[int], n: int, geometry: Sequence[int]) -> Tensor:
    """The op on an NHWC x: straight to its implementation when eager (no dispatcher round trip), else the op."""
    if _eager_direct(x):
        return _impl(x, qweight, scales, zeros, bias, bits=bits, group_size=group_size or 0, n=n, geometry=geometry)
    return torch.ops.cutlass_gemm.conv2d_weight_only_igemm(x, qweight, scales, zeros, bias, bits=bits,
                                                           group_size=group_size or 0, n=n, geometry=list(geometry))


#: `_layer_plan`'s answer for the "dequant_cudnn" route (the extension's wo_conv_layer takes it as its variant).
DEQUANT_CUDNN = -1


@functools.lru_cache(maxsize=4096)
def _layer_plan(b: int, c: int, h: int, w: int, n: int, k: int, geometry: Tuple[int, ...]) -> int:
    """The kernel variant for the layer's eager call of this shape, DEQUANT_CUDNN where `_impl` would take the
    "dequant_cudnn" route (the same dequantization kernel and cuDNN / cuBLAS call as `_dequant_conv`, from C++), or 0
    where that call must take the op (a fallback, an empty or too large input). Host arithmetic, memoized per shape."""
    kh, kw, sh, sw, ph, pw, dh, dw = geometry
    p, q = out_size(h, kh, sh, ph, dh), out_size(w, kw, sw, pw, dw)
    rows = b * p * q
    if p < 1 or q < 1 or rows == 0:
        return 0
    if not wo_heuristics.conv_uses_kernel(rows, n, k):
        return DEQUANT_CUDNN
    if b * c * h * w >= 1 << 31 or h + ph >= 1 << 14 or w + pw >= 1 << 14:
        return 0
    variant = wo_heuristics.conv_variant(rows, n, k)
    return variant if rows <= wo_heuristics.conv_row_limit(variant) else 0


_fast_ext = None


def layer_fast_call(x: Tensor, qweight: Tensor, scales: Tensor, zeros: Optional[Tensor], bias: Optional[Tensor],
                    bits: int, group_size: Optional[int], n: int, geometry: Tuple[int, ...],
                    in_channels: int) -> Optional[Tensor]:
    """The eager call of `nn.WeightOnlyConv2d`: one C++ call (`wo_conv_layer`: channels_last x in, channels_last
    output out, no view; the implicit GEMM, or the "dequant_cudnn" route's dequantization and `F.conv2d`) for a
    channels_last, 16-byte aligned x whose dtype is the scales' and the bias', on a layer's own buffers (checked when
    it was built), or None (not eager, NCHW x, a fallback, anything unusual): the caller then takes `conv_forward`,
    which serves the call or raises the typed error."""
    global _fast_ext
    if type(x) is not Tensor or not x.is_cuda or x.dim() != 4 or not _eager_direct(x) or x.shape[1] != in_channels:
        return None
    if x.dtype != scales.dtype or (bias is not None and bias.dtype != x.dtype) or x.data_ptr() % 16 \
            or not x.is_contiguous(memory_format=torch.channels_last):
        return None
    if _fast_ext is None:
        _fast_ext = extension.load() or False
    if not _fast_ext:
        return None
    b, c, h, w = x.shape
    variant = _layer_plan(b, c, h, w, n, qweight.shape[1] // bits, geometry)
    if not variant:
        return None
    return _fast_ext.wo_conv_layer(x, qweight, scales, zeros, bias, bits, group_size or 0, n, geometry, variant)


def conv_forward(x: Tensor, qweight: Tensor, scales: Tensor, zeros: Optional[Tensor], bias: Optional[Tensor],
                 bits: int, group_size: Optional[int], n: int, geometry: Sequence[int], in_channels: int) -> Tensor:
    """x (N, Ci, H, W) or (Ci, H, W) -> (N, Co, P, Q) in x's memory format through the op (NHWC inside: a view for a
    channels_last x, one permute copy otherwise, and one back for an NCHW x)."""
    if not isinstance(x, Tensor) or x.dim() not in (3, 4):
        raise InvalidArgumentError("x", f"must be (N, Ci, H, W) or (Ci, H, W), got "
                                        f"{tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__}")
    unbatched = x.dim() == 3
    x4 = x.unsqueeze(0) if unbatched else x
    if x4.shape[1] != in_channels:
        raise InvalidArgumentError("x", f"must have {in_channels} channels (dim {0 if unbatched else 1}), got "
                                        f"{x4.shape[1]}")
    cl = x4.is_contiguous(memory_format=torch.channels_last)
    nhwc = x4.permute(0, 2, 3, 1)
    if not cl:
        nhwc = nhwc.contiguous()
    y = conv_igemm_call(nhwc, qweight, scales, zeros, bias, bits, group_size, n, geometry).permute(0, 3, 1, 2)
    if not cl:
        y = y.contiguous()
    return y.squeeze(0) if unbatched else y


def conv2d_weight_only_kxk(x: Tensor, w_packed: PackedWeight, bias: Optional[Tensor] = None,
                           kernel_size: Pair = 3, stride: Pair = 1, padding: Union[Pair, str] = 0,
                           dilation: Pair = 1, groups: int = 1) -> Tensor:
    """F.conv2d(x, W, bias, stride, padding, dilation) for a weight-only quantized W: `w_packed` = `prepack` of
    `quant.conv_weight_matrix(W, group)` quantized; x (N, Ci, H, W) float16/bfloat16. Output in x's dtype and memory
    format. Typed errors before any kernel (module docstring)."""
    if not isinstance(w_packed, PackedWeight):
        raise InvalidArgumentError("w_packed", f"must be a PackedWeight (quant.prepack), got {type(w_packed).__name__}")
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise InvalidArgumentError("groups", f"must be a positive int, got {groups!r}")
    if groups != 1:
        raise UnsupportedConvError("groups", f"groups={groups}: only groups=1 weight-only convolutions are served")
    geometry = conv_geometry(kernel_size, stride, padding, dilation)
    if w_packed.perm is not None:
        raise InvalidArgumentError("w_packed", "an act-order (perm) weight has no convolution form")
    if isinstance(x, Tensor) and x.dim() in (3, 4):
        ci = x.shape[-3]
        want = conv_packed_k(geometry[0], geometry[1], ci, w_packed.group_size)
        if w_packed.k != want:  # for a 1x1 kernel K says the channels: x is the odd one out
            raise InvalidArgumentError("x" if geometry[:2] == [1, 1] else "w_packed",
                                       f"w_packed has K = {w_packed.k}, but a {geometry[0]}x{geometry[1]} kernel over "
                                       f"{ci} channels packs to K = {want} (quant.conv_weight_matrix)")
        if ci % CHANNEL_ALIGN:
            raise InvalidArgumentError("x", f"channels ({ci}) must be a multiple of {CHANNEL_ALIGN}")
    return conv_forward(x, w_packed.qweight, w_packed.scales, w_packed.zeros, bias, w_packed.bits,
                        w_packed.group_size, w_packed.n, geometry,
                        x.shape[-3] if isinstance(x, Tensor) and x.dim() >= 3 else -1)
