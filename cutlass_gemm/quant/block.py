"""Per-block (along K) quantization of an (R, K) activation or weight, and its reference dequantization
(the layout a per-block GEMM consumes: scales (R, K // block_size))."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from cutlass_gemm.errors import InvalidArgumentError

from ._checks import check_float_tensor, check_positive_int, check_quant_dtype
from .scales import (INT8_MAX, INT8_MIN, _FLT_TINY, _check_symmetric_for_dtype, _const, _qmax,
                     _quantize_elementwise, _scale_from_amax_f32)

__all__ = ["BlockQuantized", "quantize_per_block", "dequantize_per_block"]


@dataclass(frozen=True)
class BlockQuantized:
    """A per-block (along K) quantized ``(R, K)`` tensor (activation ``R=M`` or weight ``R=N``).

    Attributes:
        q: ``(R, K)`` int8 or float8_e4m3fn, contiguous.
        scale: ``(R, K // block_size)`` float32.
        offset: ``(R, K // block_size)`` float32 for asymmetric (offset form
            ``x ~= scale * q + offset``), ``None`` for symmetric.
        block_size: number of consecutive K elements sharing one scale.
    """

    q: torch.Tensor
    scale: torch.Tensor
    offset: Optional[torch.Tensor]
    block_size: int

    def dequantize(self) -> torch.Tensor:
        """``scale * q (+ offset)`` per block, float64, shape ``(R, K)``."""
        return dequantize_per_block(self.q, self.scale, self.offset, self.block_size)


def quantize_per_block(
    x: torch.Tensor,
    block_size: int,
    *,
    symmetric: bool = True,
    dtype: torch.dtype = torch.int8,
    check_finite: bool = False,
) -> BlockQuantized:
    """Per-block quantization along K of an ``(R, K)`` activation (``R = M``) or weight (``R = N``).

    Each row is cut into ``K // block_size`` blocks of consecutive K elements;
    each block gets its own parameters, stored as ``(R, K // block_size)``.

    * symmetric: ``scale = amax / qmax`` (127 int8, 448 fp8), ``q = round(x / scale)``.
    * asymmetric (int8 only), the *offset form* of the per-block seed::

          scale  = (max - min) / 255
          offset = max - 127 * scale          # max -> 127, min -> -128
          q      = clamp(round((x - offset) / scale), -128, 127)
          x     ~= scale * q + offset

      ``scale`` is computed in float64 and rounded to float32; ``offset`` is
      computed in float64 from the float32 scale and rounded to float32.  The
      range is *not* widened to contain 0 (the offset is a float, not an
      integer zero point).  Unlike the seed, which falls back to ``scale = 1,
      offset = max`` whenever ``scale <= 1e-5``, the fallback is used only for
      a constant block (``max == min``), so small-magnitude blocks keep full
      resolution; a constant block then quantizes to 0 and dequantizes exactly.

    Rounding is half-to-even and results saturate (see module docstring).

    Raises:
        InvalidArgumentError: bad ``x``; ``block_size`` not a positive int or
            not dividing K; asymmetric fp8; bad ``dtype``.
    """
    # the asymmetric (offset) form has no NaN rule: it always checks (and synchronises)
    check_float_tensor(x, "x", ndim=2, check_finite=check_finite or not symmetric)
    check_positive_int(block_size, "block_size")
    check_quant_dtype(dtype)
    _check_symmetric_for_dtype(symmetric, dtype)
    r, k = x.shape
    if k % block_size != 0:
        raise InvalidArgumentError("block_size", f"must divide K={k}, got {block_size}")

    g = k // block_size
    xb = x.detach().to(torch.float32).contiguous().reshape(r, g, block_size)
    if symmetric:
        scale = _scale_from_amax_f32(xb.abs().amax(dim=2), _qmax(dtype))  # (R, G)
        q = _quantize_elementwise(xb, scale.unsqueeze(-1), None, dtype)
        return BlockQuantized(q.reshape(r, k), scale, None, int(block_size))

    mn = xb.amin(dim=2).to(torch.float64)
    mx = xb.amax(dim=2).to(torch.float64)
    rng = mx - mn
    constant = rng == 0
    scale = torch.div(rng, _const(255.0, rng)).to(torch.float32)
    scale = torch.clamp_min(scale, _FLT_TINY)
    scale = torch.where(constant, torch.ones_like(scale), scale)
    offset64 = mx - _const(127.0, mx) * scale.to(torch.float64)
    offset = torch.where(constant, mx, offset64).to(torch.float32)
    y = torch.div(xb - offset.unsqueeze(-1), scale.unsqueeze(-1))
    q = torch.clamp(torch.round(y), INT8_MIN, INT8_MAX).to(torch.int8)
    return BlockQuantized(q.reshape(r, k), scale, offset, int(block_size))


def dequantize_per_block(
    q: torch.Tensor, scale: torch.Tensor, offset: Optional[torch.Tensor], block_size: int
) -> torch.Tensor:
    """Reference per-block dequantization ``scale * q (+ offset)`` in float64, shape ``(R, K)``."""
    if not isinstance(q, torch.Tensor) or q.dim() != 2:
        raise InvalidArgumentError("q", "expected a 2-D tensor")
    check_positive_int(block_size, "block_size")
    r, k = q.shape
    if k % block_size != 0:
        raise InvalidArgumentError("block_size", f"must divide K={k}, got {block_size}")
    g = k // block_size
    if not isinstance(scale, torch.Tensor) or tuple(scale.shape) != (r, g):
        raise InvalidArgumentError("scale", f"expected shape ({r}, {g})")
    out = q.to(torch.float64).reshape(r, g, block_size) * scale.to(q.device, torch.float64).unsqueeze(-1)
    if offset is not None:
        if not isinstance(offset, torch.Tensor) or tuple(offset.shape) != (r, g):
            raise InvalidArgumentError("offset", f"expected shape ({r}, {g})")
        out = out + offset.to(q.device, torch.float64).unsqueeze(-1)
    return out.reshape(r, k)
