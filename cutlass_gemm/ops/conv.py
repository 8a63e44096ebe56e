"""Quantized 2-D convolutions: `conv2d_weight_only` (W4A16 / W8A16) and `conv2d_int8` (W8A8).

    y = conv2d_weight_only(x, w_packed, bias)                  # w_packed = prepack(quantize_weight_only(w2d, ...))
    y = conv2d_int8(x, w_q, w_scale, bias, act="dynamic", activation="relu")

A 1x1 convolution with stride 1, no padding, dilation 1 and groups 1 is exactly a GEMM: in channels_last
order the input is an (N*H*W, Ci) matrix of pixels, the weight (Co, Ci, 1, 1) an (N, K) = (Co, Ci) one,
and the output the (N*H*W, Co) matrix of output pixels. So both ops run the existing, GPU-tested GEMMs on
that view and nothing else: `weight_only_linear` (ops/weight_only.py: the small-M mma kernel for M <= 64
pixels, the announced dequantize + F.linear fallback above) and `w8a8_linear` (ops/linear.py: activation
quantization + the fused int8 GEMM, bias and ReLU/ReLU6 in its epilogue). The weight-only format's
blocks along K are blocks along Ci (= Ci * Kh * Kw for 1x1): group 32/64/128 or per channel.

Layout (the choice where the issue is silent):
- x is (N, Ci, H, W) (or unbatched (Ci, H, W)). A channels_last x is used without a copy:
  x.permute(0, 2, 3, 1) is then a contiguous (N, H, W, Ci) tensor, i.e. the (N*H*W, Ci) row matrix.
  Any other x (NCHW-contiguous, or strided) costs one permute copy into that order.
- The output is in x's memory format: channels_last for a channels_last x (the GEMM's row-major
  (N*H*W, Co) output viewed as (N, Co, H, W), no copy); NCHW-contiguous otherwise (one permute copy of
  the output). An x that is both (H = W = 1) takes the no-copy path and its output is both.

Weight-only convolutions that are not such GEMMs (any kernel, stride, padding, dilation; groups 1) run the
implicit GEMM of ops/conv_wo.py; W8A8 ones the int8 implicit GEMM (`conv2d_int8_krsc` below). What neither serves
raises `UnsupportedConvError` (an `InvalidArgumentError`) naming the argument, before any kernel: there is no silent
fallback to F.conv2d. Channel counts the kernels cannot serve are refused as those ops refuse them: the weight-only
GEMM needs Co % 32 == 0 and Ci % 64 == 0 (other Ci % 8 == 0 take the implicit GEMM), W8A8 needs Ci % 16 == 0 and
Co % 8 == 0 (`InvalidArgumentError` from the GEMM's checks). Neither op reads a tensor value on the host, so both run
under torch.compile(fullgraph=True) and in CUDA graphs.
"""
from __future__ import annotations

from typing import NamedTuple, Optional, Tuple, Union

import torch

from ..errors import InvalidArgumentError, UnsupportedConvError
from ..quant.prepack import PackedWeight
from . import quantize as qops
from .conv_igemm import conv2d_int8_igemm, igemm_unsupported_reason
from ._registry import define_op
from .gemm import K_ALIGN, N_ALIGN, _eager_direct
from .linear import w8a8_linear
from .weight_only import weight_only_linear

Tensor = torch.Tensor
Pair = Union[int, Tuple[int, int]]
SERVED = "only 1x1 convolutions with stride 1, padding 0, dilation 1 and groups 1 are GEMMs"


def _pair(value, name: str) -> Tuple[int, int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value, value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        return (int(value[0]), int(value[1]))
    raise InvalidArgumentError(name, f"must be an int or a pair of ints, got {value!r}")


def conv_unsupported_reason(kernel_size: Pair = 1, stride: Pair = 1, padding: Union[Pair, str] = 0,
                            dilation: Pair = 1, groups: int = 1) -> Optional[Tuple[str, str]]:
    """(argument, why) when these convolution parameters are not served (anything but 1x1, stride 1, no
    padding, dilation 1, groups 1), else None. Malformed values raise InvalidArgumentError."""
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise InvalidArgumentError("groups", f"must be a positive int, got {groups!r}")
    ks = _pair(kernel_size, "kernel_size")
    if isinstance(padding, str) and padding not in ("valid", "same"):
        raise InvalidArgumentError("padding", f"must be 'valid', 'same', an int or a pair of ints, got {padding!r}")
    # 'valid' is no padding; 'same' is no padding for a 1x1 kernel (and is judged with the kernel size)
    pad = (0, 0) if padding == "valid" or (padding == "same" and ks == (1, 1)) else padding
    checks = (("kernel_size", ks, (1, 1)), ("stride", _pair(stride, "stride"), (1, 1)),
              ("padding", pad if isinstance(pad, str) else _pair(pad, "padding"), (0, 0)),
              ("dilation", _pair(dilation, "dilation"), (1, 1)), ("groups", groups, 1))
    for name, got, want in checks:
        if got != want:
            return name, f"{name}={got!r}: {SERVED}"
    return None


def check_conv_1x1(kernel_size: Pair = 1, stride: Pair = 1, padding: Union[Pair, str] = 0, dilation: Pair = 1,
                   groups: int = 1) -> None:
    """Raise UnsupportedConvError naming the first argument that makes this more than a 1x1 GEMM."""
    why = conv_unsupported_reason(kernel_size, stride, padding, dilation, groups)
    if why is not None:
        raise UnsupportedConvError(*why)


class Rows(NamedTuple):
    """An activation as the GEMM's (N*H*W, Ci) row matrix, and what it takes to give the output x's shape."""
    rows: Tensor
    batch: int
    height: int
    width: int
    channels_last: bool  # output in channels_last (no copy) rather than NCHW-contiguous
    unbatched: bool


def to_rows(x: Tensor, channels: Optional[int] = None) -> Rows:
    """x (N, Ci, H, W) or (Ci, H, W) -> its (N*H*W, Ci) pixel rows: a view when x is channels_last, else one
    permute copy. `channels`: the Ci the weight expects (InvalidArgumentError("x") otherwise)."""
    if not isinstance(x, Tensor):
        raise InvalidArgumentError("x", f"must be a torch.Tensor, got {type(x).__name__}")
    if x.dim() not in (3, 4):
        raise InvalidArgumentError("x", f"must be (N, Ci, H, W) or (Ci, H, W), got shape {tuple(x.shape)}")
    unbatched = x.dim() == 3
    x4 = x.unsqueeze(0) if unbatched else x
    n, c, h, w = x4.shape
    if channels is not None and c != channels:
        raise InvalidArgumentError("x", f"must have {channels} channels (dim {0 if unbatched else 1}), got {c}")
    cl = x4.is_contiguous(memory_format=torch.channels_last)
    nhwc = x4.permute(0, 2, 3, 1)
    if not cl:  # the documented copy: NCHW (or strided) input into pixel-major order
        nhwc = nhwc.contiguous()
    return Rows(nhwc.reshape(n * h * w, c), n, h, w, cl, unbatched)


def from_rows(y: Tensor, r: Rows) -> Tensor:
    """The GEMM's (N*H*W, Co) output as (N, Co, H, W) (or (Co, H, W)) in the input's memory format."""
    out = y.reshape(r.batch, r.height, r.width, y.shape[-1]).permute(0, 3, 1, 2)
    if not r.channels_last:
        out = out.contiguous()  # NCHW in, NCHW-contiguous out: one copy
    return out.squeeze(0) if r.unbatched else out


def conv2d_weight_only(x: Tensor, w_packed: PackedWeight, bias: Optional[Tensor] = None, stride: Pair = 1,
                       padding: Union[Pair, str] = 0, dilation: Pair = 1, groups: int = 1, *,
                       kernel_size: Pair = 1) -> Tensor:
    """F.conv2d(x, W, bias, stride, padding, dilation) for a weight-only quantized W: x (N, Ci, H, W) float16/bfloat16
    (NCHW or channels_last), bias (Co,) in x's dtype; output (N, Co, P, Q) in x's dtype and memory format. A
    PackedWeight records no kernel shape: `kernel_size` says it.
    - 1x1, stride 1, no padding, dilation 1 with `w_packed` = `quant.prepack` of the (Co, Ci) weight (K = Ci; blocks
      along Ci): the weight-only GEMM on the pixel rows (module docstring);
    - anything else (groups 1): the implicit GEMM of ops/conv_wo.py, `w_packed` = `prepack` of
      `quant.conv_weight_matrix(W, block)` quantized (K in (Kh, Kw, Ci) order, zero-padded).
    Typed errors (UnsupportedConvError, InvalidArgumentError) before any kernel."""
    if not isinstance(w_packed, PackedWeight):
        raise InvalidArgumentError("w_packed", f"must be a PackedWeight (quant.prepack), got {type(w_packed).__name__}")
    gemm = conv_unsupported_reason(kernel_size, stride, padding, dilation, groups) is None
    if gemm and isinstance(x, Tensor) and x.dim() in (3, 4) and x.shape[-3] == w_packed.k:
        r = to_rows(x, w_packed.k)
        return from_rows(weight_only_linear(r.rows, w_packed, bias), r)
    from .conv_wo import conv2d_weight_only_kxk  # conv_wo imports this module's helpers
    return conv2d_weight_only_kxk(x, w_packed, bias, kernel_size, stride, padding, dilation, groups)


def conv2d_int8(x: Tensor, w_q: Tensor, w_scale: Tensor, bias: Optional[Tensor] = None, *, act: str = "dynamic",
                input_scale: Optional[Tensor] = None, input_zero_point: Optional[Tensor] = None,
                azp_adj: Optional[Tensor] = None, activation: Optional[str] = None,
                out_dtype: Optional[torch.dtype] = None, stride: Pair = 1, padding: Union[Pair, str] = 0,
                dilation: Pair = 1, groups: int = 1) -> Tensor:
    """act(F.conv2d(x, W, bias, stride, padding, dilation)) with int8 activations and an int8 weight
    W = w_q * w_scale per output channel: x (N, Ci, H, W) fp32/fp16/bf16, NCHW or channels_last; w_q int8
    (Co, Ci, Kh, Kw) (or (Co, Ci) for 1x1); w_scale float32 (1, Co); bias (Co,) in the output dtype.

    A 1x1 / stride-1 / unpadded conv runs `w8a8_linear` on the pixel rows (`act`, `input_scale`,
    `input_zero_point`, `azp_adj`, `activation` as there; "dynamic" quantizes per pixel). Any other conv runs
    the int8 implicit GEMM (`conv2d_int8_krsc`): w_q must then be channels_last (its memory is the kernel's
    KRSC order; `w_q.contiguous(memory_format=torch.channels_last)`), activations are per tensor ("dynamic" =
    "dynamic_per_tensor": one scale for the whole input, computed on the device; "static" with `input_scale`),
    `activation` None / "relu" / "relu6". Output (N, Co, P, Q) in x's memory format. Typed errors before any
    kernel: UnsupportedConvError for what neither path serves, InvalidArgumentError for bad arguments."""
    if not isinstance(w_q, Tensor) or w_q.dim() not in (2, 4):
        got = f"shape {tuple(w_q.shape)}" if isinstance(w_q, Tensor) else type(w_q).__name__
        raise InvalidArgumentError("w_q", f"must be an int8 (Co, Ci, Kh, Kw) or (Co, Ci) tensor, got {got}")
    kernel = tuple(w_q.shape[2:]) if w_q.dim() == 4 else (1, 1)
    if conv_unsupported_reason(kernel, stride, padding, dilation, groups) is not None:
        if w_q.dtype != torch.int8:
            raise InvalidArgumentError("w_q", f"must be int8, got {w_q.dtype}")
        if not w_q.is_contiguous(memory_format=torch.channels_last):
            raise InvalidArgumentError("w_q", "a k x k / strided / padded conv's weight must be channels_last "
                                              "(KRSC memory): pass w_q.contiguous(memory_format=torch.channels_last)")
        if input_zero_point is not None or azp_adj is not None:
            raise UnsupportedConvError("act", "zero points (asymmetric activations) are served for 1x1 convs only")
        return conv2d_int8_krsc(x, w_q.permute(0, 2, 3, 1), w_scale, bias, act=act, input_scale=input_scale,
                                activation=activation, out_dtype=out_dtype, stride=stride, padding=padding,
                                dilation=dilation, groups=groups)
    co, ci = w_q.shape[0], w_q.shape[1]
    if ci % K_ALIGN or co % N_ALIGN:  # said in channels here rather than by the GEMM in rows and columns
        raise InvalidArgumentError("w_q", f"Ci = {ci} must be a multiple of {K_ALIGN} and Co = {co} of {N_ALIGN} "
                                          f"(the int8 GEMM's 16-byte rows), got a ({co}, {ci}) weight")
    w2 = w_q.reshape(co, ci)  # a view for any contiguous (Co, Ci, 1, 1) weight
    r = to_rows(x, w2.shape[1])
    y = w8a8_linear(r.rows, w2, w_scale, bias, act=act, input_scale=input_scale, input_zero_point=input_zero_point,
                    azp_adj=azp_adj, out_dtype=out_dtype, activation=activation)
    return from_rows(y, r)


#: The implicit GEMM's activation schemes: one scale per tensor (a per-pixel scale cannot be taken out of a
#: sum that runs over Kh x Kw pixels), so "dynamic" means "dynamic_per_tensor" there.
IGEMM_ACTS = ("dynamic", "dynamic_per_tensor", "static")
_FLOAT_INPUTS = (torch.float32, torch.float16, torch.bfloat16)


def conv_padding(padding: Union[Pair, str], kernel: Tuple[int, int], stride: Tuple[int, int],
                 dilation: Tuple[int, int]) -> Tuple[int, int]:
    """Symmetric (pad_h, pad_w) for an int, a pair, "valid" or "same" (stride 1, even dilation * (k - 1):
    the kernel pads both sides alike; PyTorch's extra bottom/right row of an odd total is not served)."""
    if padding == "valid":
        return (0, 0)
    if padding == "same":
        if stride != (1, 1):
            raise InvalidArgumentError("padding", "padding='same' needs stride 1 (as in F.conv2d)")
        total = tuple(d * (k - 1) for k, d in zip(kernel, dilation))
        if any(t % 2 for t in total):
            raise UnsupportedConvError("padding", f"padding='same' with kernel {kernel} and dilation {dilation} pads "
                                                  f"unevenly; the implicit GEMM pads both sides alike")
        return (total[0] // 2, total[1] // 2)
    if isinstance(padding, str):
        raise InvalidArgumentError("padding", f"must be 'valid', 'same', an int or a pair of ints, got {padding!r}")
    return _pair(padding, "padding")


def conv2d_int8_krsc(x: Tensor, w_krsc: Tensor, w_scale: Tensor, bias: Optional[Tensor] = None, *,
                     act: str = "dynamic", input_scale: Optional[Tensor] = None, activation: Optional[str] = None,
                     out_dtype: Optional[torch.dtype] = None, stride: Pair = 1, padding: Union[Pair, str] = 0,
                     dilation: Pair = 1, groups: int = 1) -> Tensor:
    """The implicit-GEMM int8 conv on a KRSC weight w_krsc (Co, Kh, Kw, Ci) int8 contiguous (what
    `Int8Conv2d` holds): quantize x per tensor on the device (no host read), run
    `cutlass_gemm::conv2d_int8_igemm`, give the output x's memory format. x NCHW costs one permute copy
    into NHWC (channels_last x: none) and one back. fp32 x: bf16 output returned as fp32."""
    if act not in IGEMM_ACTS:
        raise UnsupportedConvError("act", f"k x k / strided convolutions take act in {IGEMM_ACTS}, got {act!r}")
    if activation not in (None, "relu", "relu6"):
        raise UnsupportedConvError("activation", f"k x k / strided convolutions fuse None, 'relu' or 'relu6', "
                                                 f"got {activation!r}")
    if not isinstance(w_krsc, Tensor) or w_krsc.dim() != 4 or w_krsc.dtype != torch.int8 \
            or not w_krsc.is_contiguous():
        raise InvalidArgumentError("w_q", "must be an int8 (Co, Kh, Kw, Ci)-ordered (KRSC) contiguous weight")
    co, kh, kw, ci = w_krsc.shape
    st, dil = _pair(stride, "stride"), _pair(dilation, "dilation")
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise InvalidArgumentError("groups", f"must be a positive int, got {groups!r}")
    pad = conv_padding(padding, (kh, kw), st, dil)
    why = igemm_unsupported_reason((kh, kw), st, pad, dil, groups, ci, co)
    if why is not None:
        arg, msg = why
        if arg.endswith("channels"):
            raise InvalidArgumentError("w_q", msg)
        raise UnsupportedConvError(arg, msg)
    if act == "static" and input_scale is None:
        raise InvalidArgumentError("input_scale", "act='static' needs the calibrated per-tensor scale")
    if act != "static" and input_scale is not None:
        raise InvalidArgumentError("input_scale", f"act={act!r} computes its scale; input_scale is for act='static'")
    return igemm_forward(x, w_krsc, w_scale, bias, act == "static", input_scale, activation, out_dtype, st, pad, dil)


def _wide_rows(nhwc: Tensor) -> Tensor:
    """A (rows, L) view of a contiguous NHWC tensor with L the widest of 8192, 4096, ..., that divides its size
    (at least Ci: the pixel rows themselves), so a per-row kernel runs few long rows."""
    numel, ci = nhwc.numel(), nhwc.shape[-1]
    width = 8192
    while width > ci and (numel % width or width % ci):
        width //= 2
    return nhwc.reshape(-1, width if width > ci and numel % width == 0 else ci)


def _static_nhwc(nhwc: Tensor, input_scale: Tensor) -> Tuple[Tensor, Tensor]:
    # One scale for the whole tensor: quantized as wide rows of the contiguous NHWC memory, not one row per
    # pixel (Ci elements: a CTA each, 120 us for ResNet's 32x64x56x56 in session7/call5 against 37 us dynamic)
    q, row_scale = qops.quantize_static(_wide_rows(nhwc), input_scale, torch.int8)
    # row_scale is the static scale, or NaN for a row holding NaN/Inf: its max (NaN wins) makes such an
    # input NaN out, as the per-tensor dynamic scale does, instead of a plausible output (device op, no sync)
    return q.view(nhwc.shape), row_scale.amax().reshape(1)


def quantize_static_nhwc(nhwc: Tensor, input_scale: Tensor) -> Tuple[Tensor, Tensor]:
    """(q int8 like `nhwc`, scale (1,) float32) for a contiguous NHWC activation and its calibrated per-tensor scale:
    the scale, or NaN where the input held NaN/Inf. Traced calls are one op (`cutlass_gemm::quantize_static_nhwc`):
    the rows' width follows the divisors of the tensor's size, which a symbolic batch must not be guarded on."""
    if _eager_direct(nhwc):
        return _static_nhwc(nhwc, input_scale)
    return torch.ops.cutlass_gemm.quantize_static_nhwc(nhwc, input_scale)


_QS_OP = define_op("quantize_static_nhwc(Tensor nhwc, Tensor input_scale) -> (Tensor, Tensor)", _static_nhwc)


@torch.library.register_fake(_QS_OP)
def _(nhwc, input_scale):
    return torch.empty_like(nhwc, dtype=torch.int8), nhwc.new_empty((1,), dtype=torch.float32)


class Int8ConvActivation(NamedTuple):
    """An int8 activation between two chained convolutions (nn/chain.py): `q` the int8 (N, H, W, C) contiguous
    tensor (NHWC: what the next implicit GEMM reads, passed on with no view op), `scale` its per-tensor
    float32 scale, a one-element device tensor (the consumer's calibrated input scale itself), and `guard`
    None or a one-element float32 tensor that is NaN or infinite when the chain's input held NaN/Inf (the chain's
    first activation scale). int8 has no NaN, so the chain carries it there: the value of q is
    `q * (scale + 0 * guard)` (`dequantize()`), and every kernel reading q reads its scale that way, so the float
    output at the chain's end is NaN, never a plausible value, with no op between the layers."""
    q: Tensor
    scale: Tensor
    guard: Optional[Tensor] = None

    def effective_scale(self) -> Tensor:
        """scale + 0 * guard: the scale, or NaN when the chain's input was not finite (a device op)."""
        return self.scale if self.guard is None else torch.add(self.scale, self.guard, alpha=0.0)

    def dequantize(self, dtype: torch.dtype = torch.float32) -> Tensor:
        """The activation as (N, C, H, W) floats (a channels_last view of the NHWC values)."""
        return (self.q.to(dtype) * self.effective_scale().to(dtype)).permute(0, 3, 1, 2)


def igemm_forward(x: Union[Tensor, Int8ConvActivation], w_krsc: Tensor, w_scale: Tensor, bias: Optional[Tensor],
                  static: bool, input_scale: Optional[Tensor], activation: Optional[str],
                  out_dtype: Optional[torch.dtype], stride: Tuple[int, int], padding: Tuple[int, int],
                  dilation: Tuple[int, int], int8_out: Optional[Tuple[Tensor, Tensor, Tensor]] = None
                  ) -> Union[Tensor, Int8ConvActivation]:
    """The per-call part of `conv2d_int8_krsc` for parameters it (or `Int8Conv2d`'s constructor) already
    checked: normalised pairs, a servable conv, `input_scale` given iff `static`. Checks x (what changes per
    call), quantizes it per tensor on the device, runs the implicit GEMM, returns x's memory format.
    Copies: none for a channels_last x (NHWC is then a view, and so is the output); an NCHW x costs one permute
    copy in and one out; a float32 x one cast of the bf16 output.
    An `Int8ConvActivation` x is used as is (no quantization: its q, scale and guard feed the kernel). `int8_out` =
    (out_scale, 1 / out_scale, bias float32 or None) makes the output an `Int8ConvActivation` quantized with that
    scale in the epilogue: scale out_scale, guard x's guard for a chained x, else this call's scale_x (NaN when x
    held NaN/Inf). No device op beyond the quantization and the kernel."""
    if isinstance(x, Int8ConvActivation):
        return _igemm_chained(x, w_krsc, w_scale, bias, activation, out_dtype, stride, padding, dilation, int8_out)
    if not isinstance(x, Tensor) or x.dim() not in (3, 4):
        raise InvalidArgumentError("x", f"must be (N, Ci, H, W) or (Ci, H, W), got "
                                        f"{tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__}")
    if x.dtype not in _FLOAT_INPUTS:
        raise InvalidArgumentError("x", f"must be float32, float16 or bfloat16, got {x.dtype}")
    ci = w_krsc.shape[3]
    back_to_f32 = out_dtype is None and x.dtype == torch.float32  # w8a8_linear's rule for float32 input
    if out_dtype is None:
        out_dtype = x.dtype if x.dtype in (torch.float16, torch.bfloat16) else torch.bfloat16
    unbatched = x.dim() == 3
    x4 = x.unsqueeze(0) if unbatched else x
    if x4.shape[1] != ci:
        raise InvalidArgumentError("x", f"must have {ci} channels (dim {0 if unbatched else 1}), got {x4.shape[1]}")
    cl = x4.is_contiguous(memory_format=torch.channels_last)
    nhwc = x4.permute(0, 2, 3, 1)
    if not cl:  # the documented copy: NCHW (or strided) input into pixel-major order
        nhwc = nhwc.contiguous()
    if static:
        q, scale_x = quantize_static_nhwc(nhwc, input_scale)
    else:
        q, scale_x = qops.quantize_per_tensor(nhwc, torch.int8)
    w_scale_v = w_scale.reshape(-1) if isinstance(w_scale, Tensor) and w_scale.dim() != 1 else w_scale
    if int8_out is not None:
        if unbatched:
            raise InvalidArgumentError("x", "an int8-output (chained) convolution takes batched (N, C, H, W) input")
        return _int8_out(q, scale_x, None, w_krsc, w_scale_v, activation, stride, padding, dilation, int8_out)
    y = conv2d_int8_igemm(q, w_krsc, scale_x, w_scale_v, bias, stride, padding, dilation, activation, out_dtype)
    out = y.permute(0, 3, 1, 2)  # (N, Co, P, Q) channels_last view of the NHWC result
    if not cl:
        out = out.contiguous()
    if back_to_f32:
        out = out.float()
    return out.squeeze(0) if unbatched else out


def _int8_out(q: Tensor, scale_x: Tensor, guard: Optional[Tensor], w_krsc: Tensor, w_scale: Tensor,
              activation: Optional[str], stride, padding, dilation,
              int8_out: Tuple[Tensor, Tensor, Optional[Tensor]]) -> Int8ConvActivation:
    """The implicit GEMM with the output quantized in its epilogue. The result carries out_scale as its scale and
    the chain's guard: `guard` when x was chained, else scale_x itself (finite, or NaN/Inf for a non-finite x;
    the kernels read scale + 0 * guard, so no op makes the next scale)."""
    out_scale, inv_scale, bias32 = int8_out
    y = conv2d_int8_igemm(q, w_krsc, scale_x, w_scale, bias32, stride, padding, dilation, activation, torch.int8,
                          scale_out=inv_scale, scale_guard=guard)
    return Int8ConvActivation(y, out_scale, scale_x if guard is None else guard)


def _igemm_chained(x: Int8ConvActivation, w_krsc: Tensor, w_scale: Tensor, bias: Optional[Tensor],
                   activation: Optional[str], out_dtype: Optional[torch.dtype], stride, padding, dilation,
                   int8_out) -> Union[Tensor, Int8ConvActivation]:
    """A chained call: x.q (int8 NHWC), x.scale and x.guard go to the kernel as they are (the op checks the rest)."""
    q, scale_x, guard = x
    if type(q) is not Tensor or q.dtype != torch.int8 or q.dim() != 4 or not q.is_contiguous():
        raise InvalidArgumentError("x", "an Int8ConvActivation's q must be a contiguous int8 (N, H, W, C) tensor")
    if q.shape[3] != w_krsc.shape[3]:
        raise InvalidArgumentError("x", f"must have {w_krsc.shape[3]} channels, got {q.shape[3]}")
    w_scale_v = w_scale if w_scale.dim() == 1 else w_scale.reshape(-1)
    if int8_out is not None:
        return _int8_out(q, scale_x, guard, w_krsc, w_scale_v, activation, stride, padding, dilation, int8_out)
    y = conv2d_int8_igemm(q, w_krsc, scale_x, w_scale_v, bias, stride, padding, dilation, activation,
                          out_dtype or torch.bfloat16, scale_guard=guard)
    return y.permute(0, 3, 1, 2)
