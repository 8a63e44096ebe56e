"""The weight-only convolution's weight matrix: a (Co, Ci, Kh, Kw) conv weight as the (Co, K) matrix the weight-only
format quantizes and `prepack` lays out for the implicit-GEMM kernel.

    w2d = conv_weight_matrix(conv.weight, group_size=128)        # (Co, K), K = conv_packed_k(3, 3, Ci, 128)
    packed = prepack(quantize_weight_only(w2d, 4, 128))

Column order: the reduction in (Kh, Kw, Ci) order, k = (r * Kw + s) * Ci + c, as in a channels_last (KRSC) weight,
so that one 16-byte chunk of activations (8 channels of one pixel) is 8 consecutive columns. Blocks (groups) of
`group_size` run along that order: a block may span two taps when Ci is not a multiple of it. The matrix is
zero-padded on the right to K = Kh*Kw*Ci rounded up to a multiple of 64 (the kernel's tile) and of the block, so any
Ci that is a multiple of 8 is served (e.g. 3x3 x 64 channels = 576 columns -> 640 with blocks of 128); the kernel
reads zero activations for the padding columns, so their weights never count. A 1x1 kernel with Ci a multiple of
64 and of the block gives exactly the (Co, Ci) matrix of the 1x1 GEMM path.
"""
from __future__ import annotations

from typing import Optional

import torch

from ..errors import InvalidArgumentError

Tensor = torch.Tensor
#: The kernel's K tile: the packed K is a multiple of it.
K_TILE = 64
#: Channels per 16-byte activation chunk: Ci must be a multiple of it.
CHANNEL_ALIGN = 8


def conv_packed_k(kh: int, kw: int, in_channels: int, group_size: Optional[int]) -> int:
    """K of the packed weight of a Kh x Kw convolution over `in_channels`: Kh*Kw*Ci rounded up to a multiple of 64
    and of `group_size` (None: per channel)."""
    unit = max(K_TILE, group_size or K_TILE)
    real = kh * kw * in_channels
    return -(-real // unit) * unit


def conv_weight_matrix(weight: Tensor, group_size: Optional[int] = 128) -> Tensor:
    """The (Co, conv_packed_k(...)) matrix of a (Co, Ci, Kh, Kw) conv weight: columns in (Kh, Kw, Ci) order,
    zero-padded on the right (module docstring). Same dtype and device as `weight`."""
    if not isinstance(weight, Tensor) or weight.dim() != 4:
        got = f"shape {tuple(weight.shape)}" if isinstance(weight, Tensor) else type(weight).__name__
        raise InvalidArgumentError("weight", f"must be a (Co, Ci, Kh, Kw) tensor, got {got}")
    co, ci, kh, kw = weight.shape
    rows = weight.permute(0, 2, 3, 1).reshape(co, kh * kw * ci)
    pad = conv_packed_k(kh, kw, ci, group_size) - rows.shape[1]
    return torch.nn.functional.pad(rows, (0, pad)) if pad else rows.contiguous()


def conv_weight_from_matrix(matrix: Tensor, kh: int, kw: int, in_channels: int) -> Tensor:
    """The (Co, Ci, Kh, Kw) weight a `conv_weight_matrix` stands for (the padding columns dropped): for references
    and the dequantize fallback."""
    co = matrix.shape[0]
    real = kh * kw * in_channels
    return matrix[:, :real].reshape(co, kh, kw, in_channels).permute(0, 3, 1, 2)


__all__ = ["conv_packed_k", "conv_weight_matrix", "conv_weight_from_matrix"]
