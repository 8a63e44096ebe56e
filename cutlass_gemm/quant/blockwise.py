"""Reference quantizers and float64 GEMM of the blockwise-scaled fp8 format (DeepSeek-V3 style).

- activations: fp8 e4m3 with one scale per token per 128-wide K group, `quantize_per_block(x, 128,
  dtype=torch.float8_e4m3fn)` (block.py; the layout `cutlass_gemm.quantize_per_group` writes):
  q (M, K), scale (M, K // 128).
- weights: fp8 e4m3 with one scale per 128 x 128 block, `quantize_weight_block2d` here:
  q (N, K), scale (ceil(N / 128), K // 128); the last block row covers the N % 128 remaining rows.

The scale rule is the library's (scales.py): scale = float32(float64(absmax) / 448), 1 for an all-zero
block, NaN for a block holding a NaN or an infinity (its q = 0, so the GEMM writes NaN where it is used);
q = saturate(x * float32(1 / scale)) rounded to e4m3.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from ..errors import InvalidArgumentError
from ._checks import check_float_tensor
from .block import quantize_per_block
from .scales import FP8_E4M3_MAX, _quantize_elementwise, _scale_from_amax_f32

__all__ = ["BLOCK", "BlockwiseWeight", "quantize_weight_block2d", "quantize_act_block", "dequantize_weight_block2d",
           "blockwise_reference"]

#: The block edge of the format: 128 along K for activations and weights, 128 along N for weights.
BLOCK = 128


@dataclass(frozen=True)
class BlockwiseWeight:
    """A (N, K) weight in fp8 e4m3 with one float32 scale per 128 x 128 block: `scale` (ceil(N/128), K/128)."""

    q: torch.Tensor
    scale: torch.Tensor

    def dequantize(self) -> torch.Tensor:
        """float64 (N, K): q * its block's scale."""
        return dequantize_weight_block2d(self.q, self.scale)


def _check_k(k: int, name: str) -> None:
    if k % BLOCK:
        raise InvalidArgumentError(name, f"K = {k} must be a multiple of the {BLOCK}-wide scale block")


def quantize_weight_block2d(w: torch.Tensor, *, check_finite: bool = False) -> BlockwiseWeight:
    """Quantize a float (N, K) weight to fp8 e4m3 per 128 x 128 block (K % 128 == 0; any N >= 1)."""
    check_float_tensor(w, "w", ndim=2, check_finite=check_finite)
    n, k = w.shape
    _check_k(k, "w")
    nb, kb = -(-n // BLOCK), k // BLOCK
    w32 = w.detach().to(torch.float32)
    pad = nb * BLOCK - n
    if pad:  # zero rows do not change a block's absmax
        w32 = torch.cat([w32, w32.new_zeros((pad, k))])
    blocks = w32.reshape(nb, BLOCK, kb, BLOCK)
    # A NaN anywhere in the block must make its absmax NaN (amax propagates NaN in torch).
    scale = _scale_from_amax_f32(blocks.abs().amax(dim=(1, 3)), FP8_E4M3_MAX)  # (nb, kb)
    q = _quantize_elementwise(blocks, scale[:, None, :, None], None, torch.float8_e4m3fn)
    return BlockwiseWeight(q.reshape(nb * BLOCK, k)[:n].contiguous(), scale.contiguous())


def quantize_act_block(x: torch.Tensor, *, check_finite: bool = False):
    """Per token per 128-wide K group fp8 e4m3 quantization of a float (M, K) activation: BlockQuantized
    with q (M, K) and scale (M, K // 128) (the reference of `quantize_per_group(x, 128, float8_e4m3fn)`)."""
    check_float_tensor(x, "x", ndim=2, check_finite=check_finite)
    _check_k(x.shape[1], "x")
    return quantize_per_block(x, BLOCK, dtype=torch.float8_e4m3fn)


def dequantize_weight_block2d(q: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """float64 (N, K) = q * scale of its 128 x 128 block."""
    n, k = q.shape
    s = scale.to(torch.float64).repeat_interleave(BLOCK, 0)[:n].repeat_interleave(BLOCK, 1)
    return q.to(torch.float64) * s.to(q.device)


def blockwise_reference(a: torch.Tensor, b: torch.Tensor, scale_a: torch.Tensor, scale_b: torch.Tensor,
                        out_dtype: torch.dtype, bias: Optional[torch.Tensor] = None,
                        activation: str = "none") -> torch.Tensor:
    """float64 evaluation of the blockwise GEMM, rounded once to out_dtype (the CPU path of
    `scaled_mm_blockwise`): a (M, K) e4m3, b (K, N) e4m3 (the weight's `.t()`), scale_a (M, K/128),
    scale_b (ceil(N/128), K/128). With an activation, as the kernels compute it: the value rounded to
    float32, the activation applied in float32, then rounded to out_dtype."""
    from ..kernels import activations
    m, k = a.shape
    n = b.shape[1]
    kb = k // BLOCK
    a64 = a.to(torch.float64).reshape(m, kb, BLOCK)
    b64 = b.to(torch.float64).reshape(kb, BLOCK, n)
    partial = torch.einsum("mgk,gkn->gmn", a64, b64)  # (kb, M, N): each 128-deep block's dot products
    sb = scale_b.to(torch.float64).repeat_interleave(BLOCK, 0)[:n]  # (N, kb)
    sa = scale_a.reshape(m, kb).to(torch.float64)
    res = (partial * sa.t()[:, :, None] * sb.t()[:, None, :]).sum(0)
    if bias is not None:
        res = res + bias.reshape(1, n).to(torch.float64)
    if activation != "none":
        res = activations.torch_activation(activation)(res.to(torch.float32))
    return res.to(out_dtype)
