"""Quantized convolution layers: `WeightOnlyConv2d` (W4A16 / W8A16), a drop-in for an `nn.Conv2d` with a 1x1
kernel, stride 1, no padding, dilation 1 and groups 1, and `Int8Conv2d` (W8A8, nn/conv_int8.py: 1x1 ones on
the GEMM as below, every other groups-1 conv on the int8 implicit GEMM).

    layer = WeightOnlyConv2d.from_float(conv, bits=4, block_size=128)      # blocks along Ci (= Ci*Kh*Kw)
    layer = Int8Conv2d.from_float(conv, act="dynamic", activation="relu")  # conv + ReLU in one GEMM
    y = layer(x)                                                           # x (N, Ci, H, W), NCHW or channels_last

Such a convolution is a linear layer applied to every pixel, so each layer holds the library's linear
layer of the same scheme as its child `linear` (a `WeightOnlyLinear` / `Int8Linear` over (Co, Ci)) and
reuses it whole: its quantization (`from_float` quantizes the conv weight viewed as (Co, Ci)), buffers,
casts (`QuantizedBuffers`), backends and activation epilogues. Forward turns x into its (N*H*W, Ci) pixel
rows (a view for channels_last x, one copy for NCHW), calls the child, and gives the output x's memory
format (see `cutlass_gemm.ops.conv`); it reads no tensor value on the host (torch.compile(fullgraph=True)
and CUDA graphs work).

State: the child's buffers under the prefix `linear.` (`linear.qweight`, `linear.scales`, `linear.bias`,
... / `linear.weight`, `linear.weight_scale`, ...); a layer built with the same arguments loads another's
`state_dict`. Convolutions other than 1x1 / stride 1 / padding 0 / dilation 1 / groups 1 raise
`UnsupportedConvError` naming the argument; channel counts the kernels cannot serve raise
`InvalidArgumentError` naming `in_channels` / `out_channels` (weight-only: Co % 32, Ci % 64 and Ci % block;
W8A8: Ci % 16, Co % 8). `quantize_model` leaves such convolutions float and reports why
(`conv_unservable_reason`).
"""
from __future__ import annotations

from typing import Optional, Union

import torch
from torch import nn

from ..errors import InvalidArgumentError
from ..ops.conv import Pair, check_conv_1x1, conv_unsupported_reason, from_rows, to_rows
from .conv_int8 import Int8Conv2d, int8_conv_unservable_reason
from .weight_only import WeightOnlyLinear, weight_only_unservable_reason


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
    any groups-1 conv; "weight_only": a 1x1 WeightOnlyConv2d with `block_size`), or None."""
    if kind != "weight_only":  # Int8Conv2d: 1x1 on the GEMM, everything else on the implicit GEMM
        return int8_conv_unservable_reason(conv, act)
    why = conv_unsupported_reason(conv.kernel_size, conv.stride, conv.padding, conv.dilation, conv.groups)
    if why is not None:
        return why[1]
    return _for_conv(weight_only_unservable_reason(conv.in_channels, conv.out_channels, block_size))


def _as_linear(conv: nn.Conv2d) -> nn.Linear:
    """An nn.Linear sharing the 1x1 conv's weight viewed as (Co, Ci) and its bias (no copy: built on meta)."""
    if not isinstance(conv, nn.Conv2d):
        raise InvalidArgumentError("conv", f"must be a torch.nn.Conv2d, got {type(conv).__name__}")
    check_conv_1x1(conv.kernel_size, conv.stride, conv.padding, conv.dilation, conv.groups)
    lin = nn.Linear(conv.in_channels, conv.out_channels, bias=conv.bias is not None, device="meta")
    lin.weight = nn.Parameter(conv.weight.detach().reshape(conv.out_channels, conv.in_channels), requires_grad=False)
    if conv.bias is not None:
        lin.bias = nn.Parameter(conv.bias.detach(), requires_grad=False)
    return lin


class _Conv1x1(nn.Module):
    """The part both layers share: the convolution's parameters, and forward = rows -> child -> layout."""

    linear: nn.Module

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Pair, stride: Pair,
                 padding: Union[Pair, str], dilation: Pair, groups: int):
        super().__init__()
        check_conv_1x1(kernel_size, stride, padding, dilation, groups)
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InvalidArgumentError(name, f"must be a positive int, got {v!r}")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size, self.stride, self.padding, self.dilation, self.groups = (1, 1), (1, 1), (0, 0), (1, 1), 1

    @property
    def dtype(self) -> torch.dtype:
        """The output (compute) dtype: the child linear layer's."""
        return self.linear.dtype

    @property
    def bias(self) -> Optional[torch.Tensor]:
        return self.linear.bias

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (N, Ci, H, W) or (Ci, H, W) -> (N, Co, H, W) in x's dtype and memory format."""
        r = to_rows(x, self.in_channels)
        return from_rows(self.linear(r.rows), r)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"bias={self.linear.bias is not None}")


class WeightOnlyConv2d(_Conv1x1):
    """1x1 convolution with int4/int8 weights, blocks of `block_size` along Ci (None: per output channel),
    symmetric or with zero points, x fp16/bf16 (other dtypes computed in the layer's dtype); the child is a
    `WeightOnlyLinear`. See the module docstring."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Pair = 1, stride: Pair = 1,
                 padding: Union[Pair, str] = 0, dilation: Pair = 1, groups: int = 1, bias: bool = True, *,
                 bits: int = 4, block_size: Optional[int] = 128, zero_point: bool = False,
                 dtype: torch.dtype = torch.bfloat16, device=None):
        """An empty layer (zero weight) shaped as `from_float` fills it, ready for `load_state_dict`."""
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups)
        self.linear = _child(lambda: WeightOnlyLinear(in_channels, out_channels, bias, bits=bits, group_size=block_size,
                                                      zero_point=zero_point, dtype=dtype, device=device))

    @property
    def block_size(self) -> Optional[int]:
        return self.linear.group_size

    @classmethod
    def from_float(cls, conv: nn.Conv2d, bits: int = 4, block_size: Optional[int] = 128,
                   zero_point: bool = False) -> "WeightOnlyConv2d":
        """Quantize the 1x1 `conv` (on whatever device it is) with `quant.quantize_weight_only` over its
        (Co, Ci) weight; scales and output in the conv's dtype if 16-bit, else bfloat16."""
        lin = _as_linear(conv)
        layer = cls(conv.in_channels, conv.out_channels, bias=conv.bias is not None, bits=bits,
                    block_size=block_size, zero_point=zero_point, device="meta")  # real buffers come next
        layer.linear = WeightOnlyLinear.from_float(lin, bits=bits, group_size=block_size, zero_point=zero_point)
        return layer


__all__ = ["WeightOnlyConv2d", "Int8Conv2d", "conv_unservable_reason"]
