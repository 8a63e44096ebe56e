"""Quantized convolution layers: `WeightOnlyConv2d` (W4A16 / W8A16) and `Int8Conv2d` (W8A8, nn/conv_int8.py: 1x1
ones on the GEMM, every other groups-1 conv on the int8 implicit GEMM), drop-ins for an `nn.Conv2d`.

    layer = WeightOnlyConv2d.from_float(conv, bits=4, block_size=128)      # any groups-1 conv (zero padding)
    layer = Int8Conv2d.from_float(conv, act="dynamic", activation="relu")  # conv + ReLU in one kernel
    y = layer(x)                                                           # x (N, Ci, H, W), NCHW or channels_last

Each layer holds the library's linear layer of its scheme as its child `linear` and reuses its quantization, buffers
and casts (`QuantizedBuffers`). `WeightOnlyConv2d`'s child is a `WeightOnlyLinear` over the (Co, K) weight matrix of
`quant.conv_weight_matrix` (the reduction in (Kh, Kw, Ci) order, zero-padded to whole tiles and blocks; blocks of
`block_size` along it). A 1x1 / stride-1 / unpadded conv whose K is Ci (Ci a multiple of 64 and of the block) is a
GEMM over the (N*H*W, Ci) pixel rows: forward calls the child on them (its backends: the small-M kernels as row
blocks, the mixed-input kernel, the announced fallback). Every other one runs the weight-only implicit GEMM on the
child's buffers (`ops.conv_wo`: no im2col tensor; the announced dequantize + F.conv2d fallback where it cannot run).
Forward gives the output x's memory format and reads no tensor value on the host (torch.compile(fullgraph=True) and
CUDA graphs work).

State: the child's buffers under the prefix `linear.` (`linear.qweight`, `linear.scales`, `linear.bias`, ... /
`linear.weight`, `linear.weight_scale`, ...); a layer built with the same arguments loads another's `state_dict`.
Weight-only convolutions need groups 1, zero padding (`padding_mode="zeros"`), Ci % 8 == 0 and Co % 32 == 0: else
`UnsupportedConvError` / `InvalidArgumentError` naming the argument (`in_channels`, `out_channels`, `groups`, ...);
`quantize_model` leaves such convolutions float and reports why (`conv_unservable_reason`).
"""
from __future__ import annotations

from typing import Optional, Union

import torch
from torch import nn

from ._buffers import BufferReader, OnLinearChild
from ..errors import InvalidArgumentError, UnsupportedConvError
from ..ops.conv import Pair, from_rows, to_rows
from ..ops.conv_wo import conv_forward, conv_geometry, layer_fast_call, wo_conv_unsupported_reason
from ..quant.conv_weight import conv_packed_k, conv_weight_matrix
from ..quant.weight_only import GROUP_SIZES
from .conv_int8 import Int8Conv2d, int8_conv_unservable_reason
from .weight_only import WeightOnlyLinear


_NAMES = {"in_features": "in_channels", "out_features": "out_channels", "group_size": "block_size"}


def _for_conv(why: Optional[str]) -> Optional[str]:
    """A linear layer's reason in a convolution's words (in_features is Ci, out_features Co)."""
    if why is not None:
        for linear_word, conv_word in _NAMES.items():
            why = why.replace(linear_word, conv_word)
    return why


def _child(make):
    """Build the child linear layer; its typed errors are re-raised naming the conv's arguments."""
    try:
        return make()
    except InvalidArgumentError as e:
        raise InvalidArgumentError(_NAMES.get(e.argument, e.argument), _for_conv(str(e).split(": ", 1)[-1])) from None


def conv_unservable_reason(conv: nn.Conv2d, kind: str = "int8", block_size: Optional[int] = None,
                           act: Optional[str] = None) -> Optional[str]:
    """Why `conv` cannot become a quantized layer of `kind` ("int8": Int8Conv2d with activation scheme `act`,
    any groups-1 conv; "weight_only": a WeightOnlyConv2d with `block_size`), or None."""
    if kind != "weight_only":  # Int8Conv2d: 1x1 on the GEMM, everything else on the implicit GEMM
        return int8_conv_unservable_reason(conv, act)
    if getattr(conv, "padding_mode", "zeros") != "zeros":
        return f"padding_mode={conv.padding_mode!r}: only zero padding is served"
    try:
        conv_geometry(conv.kernel_size, conv.stride, conv.padding, conv.dilation)
    except InvalidArgumentError as e:
        return str(e)
    why = wo_conv_unsupported_reason(conv.in_channels, conv.out_channels, conv.groups)
    return None if why is None else why[1]


def _matrix_linear(conv: nn.Conv2d, block_size: Optional[int]) -> nn.Linear:
    """An nn.Linear whose weight is the conv's (Co, K) weight matrix (quant.conv_weight_matrix; for a 1x1 conv with
    K = Ci a view of the conv weight) and whose bias is the conv's (no copy of it: built on meta)."""
    if not isinstance(conv, nn.Conv2d):
        raise InvalidArgumentError("conv", f"must be a torch.nn.Conv2d, got {type(conv).__name__}")
    mat = conv_weight_matrix(conv.weight.detach(), block_size)
    lin = nn.Linear(mat.shape[1], conv.out_channels, bias=conv.bias is not None, device="meta")
    lin.weight = nn.Parameter(mat, requires_grad=False)
    if conv.bias is not None:
        lin.bias = nn.Parameter(conv.bias.detach(), requires_grad=False)
    return lin


_GEMM_GEOMETRY = [1, 1, 1, 1, 0, 0, 1, 1]
#: What the implicit-GEMM forward reads, from the child's buffer dict (_buffers.BufferReader says why).
_CHILD = BufferReader("qweight", "scales", "zeros", "bias")


class WeightOnlyConv2d(OnLinearChild):
    """Convolution with int4/int8 weights, blocks of `block_size` along the (Kh, Kw, Ci) reduction (None: per output
    channel), symmetric or with zero points, x fp16/bf16 (other dtypes computed in the layer's dtype); the child is a
    `WeightOnlyLinear`. See the module docstring."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Pair = 1, stride: Pair = 1,
                 padding: Union[Pair, str] = 0, dilation: Pair = 1, groups: int = 1, bias: bool = True, *,
                 bits: int = 4, block_size: Optional[int] = 128, zero_point: bool = False,
                 dtype: torch.dtype = torch.bfloat16, device=None, padding_mode: str = "zeros"):
        """An empty layer (zero weight) shaped as `from_float` fills it, ready for `load_state_dict`."""
        super().__init__()
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InvalidArgumentError(name, f"must be a positive int, got {v!r}")
        if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
            raise InvalidArgumentError("groups", f"must be a positive int, got {groups!r}")
        if padding_mode != "zeros":
            raise UnsupportedConvError("padding_mode", f"padding_mode={padding_mode!r}: only zero padding is served")
        geometry = conv_geometry(kernel_size, stride, padding, dilation)
        why = wo_conv_unsupported_reason(in_channels, out_channels, groups)
        if why is not None:
            raise (UnsupportedConvError if why[0] == "groups" else InvalidArgumentError)(*why)
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size, self.stride = tuple(geometry[0:2]), tuple(geometry[2:4])
        self.padding, self.dilation, self.groups = tuple(geometry[4:6]), tuple(geometry[6:8]), 1
        self.geometry = tuple(geometry)  # hashable: the eager call memoizes its plan per shape
        if block_size is not None and not (isinstance(block_size, int) and block_size in GROUP_SIZES):
            raise InvalidArgumentError("block_size", f"must be None (per channel) or one of {GROUP_SIZES}, "
                                                     f"got {block_size!r}")
        k = conv_packed_k(geometry[0], geometry[1], in_channels, block_size)
        # a 1x1 GEMM over the pixel rows: the child's own forward (and its mixed-input copy on SM90)
        self.is_gemm = geometry == _GEMM_GEOMETRY and k == in_channels
        self.linear = _child(lambda: WeightOnlyLinear(k, out_channels, bias, bits=bits, group_size=block_size,
                                                      zero_point=zero_point, dtype=dtype, device=device))

    @property
    def block_size(self) -> Optional[int]:
        return self.linear.group_size

    @classmethod
    def from_float(cls, conv: nn.Conv2d, bits: int = 4, block_size: Optional[int] = 128,
                   zero_point: bool = False) -> "WeightOnlyConv2d":
        """Quantize `conv` (on whatever device it is) with `quant.quantize_weight_only` over its weight matrix
        (`quant.conv_weight_matrix`); scales and output in the conv's dtype if 16-bit, else bfloat16."""
        if not isinstance(conv, nn.Conv2d):
            raise InvalidArgumentError("conv", f"must be a torch.nn.Conv2d, got {type(conv).__name__}")
        layer = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding, conv.dilation,
                    conv.groups, bias=conv.bias is not None, bits=bits, block_size=block_size,
                    zero_point=zero_point, device="meta", padding_mode=conv.padding_mode)  # real buffers come next
        # the implicit GEMM reads the layout of the small-M kernels only: no mixed-input copy for it
        layer.linear = WeightOnlyLinear.from_float(_matrix_linear(conv, block_size), bits=bits, group_size=block_size,
                                                   zero_point=zero_point,
                                                   large_m_backend="auto" if layer.is_gemm else "dequant")
        return layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (N, Ci, H, W) or (Ci, H, W) -> (N, Co, P, Q) in x's dtype and memory format."""
        if self.is_gemm:
            if type(x) is torch.Tensor and x.dim() == 4 and x.shape[1] == self.in_channels \
                    and x.is_contiguous(memory_format=torch.channels_last):
                # (N, H, W, Ci) is a contiguous view: the linear layer takes its leading dims as the pixel rows, with
                # two view ops instead of to_rows' and from_rows' four (host time of an eager call)
                return self.linear(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)
            r = to_rows(x, self.in_channels)
            return from_rows(self.linear(r.rows), r)
        lin = self.linear
        qweight, scales, zeros, bias = _CHILD(lin)
        y = layer_fast_call(x, qweight, scales, zeros, bias, lin.bits, lin.group_size, self.out_channels, self.geometry,
                            self.in_channels)  # eager, channels_last: one C++ call (None: below)
        if y is not None:
            return y
        xd = x if not isinstance(x, torch.Tensor) or x.dtype == lin.dtype else x.to(lin.dtype)
        y = conv_forward(xd, qweight, scales, zeros, bias, lin.bits, lin.group_size, self.out_channels, self.geometry,
                         self.in_channels)
        return y if y.dtype == x.dtype else y.to(x.dtype)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, bias={self.linear.bias is not None}, "
                f"implicit_gemm={not self.is_gemm}")


__all__ = ["WeightOnlyConv2d", "Int8Conv2d", "conv_unservable_reason"]
