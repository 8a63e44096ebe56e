"""A FasterTransformer-style int8 linear layer on cuBLASLt (example of the pieces of this package):

  1. activations quantized per tensor, symmetric:  s_x = max|x| / 127,  x_q = clamp(round(x / s_x), -127, 127)
  2. weights quantized per output channel:         s_w[n] = max|w[n, :]| / 127
  3. int8 GEMM through cuBLASLt (IMMA orders on sm75-sm88 with order="auto", plain TN elsewhere);
     K and N are zero-padded to multiples of 4 when the TN pipeline needs it (zeros add nothing to the sum)
  4. dequantization y[m, n] = acc[m, n] * s_x * s_w[n], either in torch on the int32 result (default) or
     fused into cuBLASLt as a float32 per-channel alpha vector (``fused_alpha=True``, float32 output).

Error bound against the float product (used by the tests): with |dx| <= s_x/2 and |dw| <= s_w/2 elementwise,
|y - x w^T| <= s_x/2 * sum_k |w[n,k]| + s_w[n]/2 * sum_k |x[m,k]| + K * s_x * s_w[n] / 4 (plus float32 rounding).
The quantization here is deliberately local and tiny (cutlass_gemm.quant is the library's real one).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import torch

from cutlass_gemm.errors import InvalidArgumentError

from ._validate import cuda_tensor, finite
from .matmul import TN, _parse_order, int8_matmul

__all__ = ["QuantizedWeight", "quantize_per_tensor", "quantize_weight", "ft_int8_linear", "error_bound"]

_FLOATS = (torch.float32, torch.float16, torch.bfloat16)
QMAX = 127


def _float_matrix(x, name: str) -> torch.Tensor:
    if not isinstance(x, torch.Tensor):
        raise InvalidArgumentError(name, f"expected a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in _FLOATS:
        raise InvalidArgumentError(name, f"expected float32/float16/bfloat16, got {x.dtype}")
    if x.dim() != 2 or x.numel() == 0:
        raise InvalidArgumentError(name, f"expected a non-empty 2-D matrix, got shape {tuple(x.shape)}")
    return x


def quantize_per_tensor(x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Symmetric per-tensor int8: returns (x_q int8, scale float32 0-d tensor) with x ~= x_q * scale."""
    x = _float_matrix(x, "x").float()
    amax = x.abs().amax()
    scale = torch.where(amax > 0, amax / QMAX, torch.ones_like(amax))
    q = torch.clamp(torch.round(x / scale), -QMAX, QMAX).to(torch.int8)
    return q, scale


@dataclass(frozen=True)
class QuantizedWeight:
    """Per-output-channel int8 weight: ``q`` (N, K) int8 and ``scale`` (N,) float32, w ~= q * scale[:, None]."""

    q: torch.Tensor
    scale: torch.Tensor


def quantize_weight(w: torch.Tensor) -> QuantizedWeight:
    """Symmetric per-output-channel (per row of the (N, K) weight) int8 quantization. A weight with NaN or
    infinite elements raises InvalidArgumentError (it has no meaningful scale)."""
    w = _float_matrix(w, "w").float()
    finite(w, "w")
    amax = w.abs().amax(dim=1)
    scale = torch.where(amax > 0, amax / QMAX, torch.ones_like(amax))
    q = torch.clamp(torch.round(w / scale[:, None]), -QMAX, QMAX).to(torch.int8)
    return QuantizedWeight(q.contiguous(), scale.contiguous())


def _pad(t: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    if tuple(t.shape) == (rows, cols):
        return t.contiguous()
    out = torch.zeros((rows, cols), dtype=t.dtype, device=t.device)
    out[: t.shape[0], : t.shape[1]] = t
    return out


def _round_up(v: int, m: int) -> int:
    return (v + m - 1) // m * m


def ft_int8_linear(x: torch.Tensor, w, *, order="auto", fused_alpha: bool = False) -> torch.Tensor:
    """y ~= x @ w.T through int8: x (M, K) float CUDA tensor; w (N, K) float CUDA tensor or a QuantizedWeight
    made once by ``quantize_weight``. Returns (M, N) in x's dtype. See the module docstring for the steps and
    the error bound."""
    x = _float_matrix(x, "x")
    cuda_tensor(x, "x", _FLOATS, ndim=2, contiguous=False)
    qw = w if isinstance(w, QuantizedWeight) else quantize_weight(w)
    if qw.q.device != x.device:
        raise InvalidArgumentError("w", f"on {qw.q.device}, but x is on {x.device}")
    m, k = (int(s) for s in x.shape)
    n, k_w = (int(s) for s in qw.q.shape)
    if k_w != k:
        raise InvalidArgumentError("w", f"shape ({n}, {k_w}) does not match x ({m}, {k}): expected (N, {k})")

    x_q, s_x = quantize_per_tensor(x)
    out_dtype = torch.float32 if fused_alpha else torch.int32
    path = _parse_order(order, x.device, out_dtype)
    # The TN pipeline needs N % 4 == 0 and K % 4 == 0: pad with zeros (exact), slice the result back.
    n_p, k_p = (_round_up(n, 4), _round_up(k, 4)) if path == TN else (n, k)
    a = _pad(x_q, m, k_p)
    b = _pad(qw.q, n_p, k_p)
    col_scale = torch.ones(n_p, dtype=torch.float32, device=x.device)
    col_scale[:n] = qw.scale * s_x  # s_x * s_w[n], float32
    if fused_alpha:
        y = int8_matmul(a, b, alpha=col_scale, out_dtype=torch.float32, order=path)
    else:
        acc = int8_matmul(a, b, out_dtype=torch.int32, order=path)
        y = acc.to(torch.float32) * col_scale[None, :]
    return y[:, :n].to(x.dtype)


def error_bound(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """Elementwise float64 bound (M, N) on |ft_int8_linear(x, w) - x @ w.T| from quantization alone."""
    x, w = _float_matrix(x, "x"), _float_matrix(w, "w")
    if x.shape[1] != w.shape[1]:
        raise InvalidArgumentError("w", f"shape {tuple(w.shape)} does not match x {tuple(x.shape)}: expected (N, K)")
    x64, w64 = x.double(), w.double()
    s_x = x64.abs().amax() / QMAX
    s_w = w64.abs().amax(dim=1) / QMAX
    k = x.shape[1]
    return (s_x / 2) * w64.abs().sum(dim=1)[None, :] + (s_w[None, :] / 2) * x64.abs().sum(dim=1)[:, None] + \
        k * s_x * s_w[None, :] / 4
