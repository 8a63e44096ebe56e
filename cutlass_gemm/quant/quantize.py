"""Quantizers producing tensors shaped exactly as the scaled GEMM ops take them.

Conventions (shared by every function here and in :mod:`.scales` and :mod:`.block`)
-----------------------------------------------------------------------------------
* **Dequantization.**  ``x ~= scale * (q - azp)`` (``azp`` only for asymmetric
  int8; symmetric quantization has no zero point), and for per-block asymmetric
  quantization the *offset form* ``x ~= scale * q + offset``.
* **Arithmetic.**  The input is first converted to float32 (exact for float16,
  bfloat16 and float32 inputs; float64 inputs are rounded to float32).  Scales
  are computed in float64 from exact float32 reductions (min/max/absmax) and
  then rounded to float32, the dtype the kernels take.  The element-wise
  quantization is done in float32 with one IEEE operation per torch op:
  ``x * inv_scale`` where ``inv_scale = 1 / scale`` is the correctly rounded
  float32 reciprocal (an IEEE division per element would make the CUDA
  kernels compute-bound; a multiply keeps them at memory speed, and both
  roundings are exact IEEE operations on every device), so CPU, CUDA torch
  and the CUDA kernels produce bit-identical results.
* **Rounding.**  int8: ``torch.round``, i.e. round-half-to-even
  (``0.5 -> 0``, ``1.5 -> 2``, ``2.5 -> 2``, ``-2.5 -> -2``).  fp8 e4m3: the
  float32 -> ``torch.float8_e4m3fn`` cast, which rounds to the nearest
  representable value, ties to even mantissa (``1.0625 -> 1.0``,
  ``1.1875 -> 1.25``).
* **Saturation.**  Values beyond the representable range are clamped, never
  wrapped: int8 results are clamped to ``[-128, 127]`` (the full int8 range, as
  the kernels' own quantizers do; a symmetric scale ``amax / 127`` only reaches
  -128 for values below ``-amax``, e.g. with static scales), fp8 results to
  ``[-448, 448]`` (``float8_e4m3fn`` has no infinity; an unclamped cast of a
  large value would give NaN).
* **Shapes.**  Activations ``x`` are ``(M, K)``; ``scale_a`` is a 0-dim float32
  tensor (per-tensor) or ``(M, 1)`` (per-token); ``azp`` is a 0-dim or
  ``(M, 1)`` int32 tensor.  Weights are given as ``(N, K)`` (like
  ``nn.Linear.weight``); the op takes ``b = w_q.t()``, a ``(K, N)``
  column-major view of the contiguous ``(N, K)`` quantized weight, and
  ``scale_b`` is a 0-dim float32 tensor (per-tensor) or ``(1, N)``
  (per-channel).  Per-block scales are ``(rows, K // block_size)``.
* **Degenerate groups.**  A group (tensor, row or block) whose values are all
  zero gets scale 1.0 (and azp 0), so it quantizes to 0 exactly.
* **Non-finite input.**  A group (tensor, row or block) holding a NaN or an
  infinity (after the float32 conversion, so float64 values beyond the float32
  range count) gets scale NaN (and azp 0) and quantizes to 0: a GEMM that
  consumes it writes NaN for those rows instead of a plausible finite value.
  Static quantization reports it through the per-row scale it returns.  No
  host synchronisation is needed; ``check_finite=True`` raises instead (and
  synchronises).  The CUDA kernels (:mod:`cutlass_gemm.ops.quantize`) follow
  the same rule, and these functions are their reference, bit for bit.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Optional

import torch

from cutlass_gemm.errors import InvalidArgumentError

from ._checks import check_choice, check_float_tensor, check_quant_dtype
from .block import BlockQuantized, dequantize_per_block, quantize_per_block
from .scales import (FP8_E4M3_MAX, INT8_MAX, INT8_MIN, _as_float_tensor, _check_symmetric_for_dtype, _qmax,
                     _quantize_elementwise, _scale_azp_f32, _scale_from_amax_f32, scale_azp_from_range,
                     scale_from_amax)

__all__ = [
    "INT8_MIN",
    "INT8_MAX",
    "FP8_E4M3_MAX",
    "QuantizedActivation",
    "QuantizedWeight",
    "BlockQuantized",
    "quantize_activation",
    "quantize_weight",
    "quantize_static",
    "quantize_per_block",
    "scale_from_amax",
    "scale_azp_from_range",
    "dequantize",
    "dequantize_per_block",
    "static_row_scale",
]

# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class QuantizedActivation:
    """A quantized activation as ``scaled_mm`` / ``scaled_mm_azp`` take it.

    Attributes:
        a: ``(M, K)`` int8 or float8_e4m3fn, contiguous (row-major).
        scale_a: float32, 0-dim (per-tensor) or ``(M, 1)`` (per-token).
        azp: int32 zero point, 0-dim or ``(M, 1)``; ``None`` for symmetric.
    """

    a: torch.Tensor
    scale_a: torch.Tensor
    azp: Optional[torch.Tensor] = None

    def dequantize(self) -> torch.Tensor:
        """``scale_a * (a - azp)`` in float64, shape ``(M, K)``."""
        return dequantize(self.a, self.scale_a, self.azp)


@dataclass(frozen=True)
class QuantizedWeight:
    """A symmetrically quantized weight.

    Attributes:
        w_q: ``(N, K)`` int8 or float8_e4m3fn, contiguous.
        scale_b: float32, 0-dim (per-tensor) or ``(1, N)`` (per-channel).
    """

    w_q: torch.Tensor
    scale_b: torch.Tensor

    @property
    def b(self) -> torch.Tensor:
        """The ``(K, N)`` column-major view ``w_q.t()`` that the GEMM ops take as ``b``."""
        return self.w_q.t()

    def dequantize(self) -> torch.Tensor:
        """The dequantized weight ``(N, K)`` in float64."""
        return dequantize(self.b, self.scale_b).t()


# --------------------------------------------------------------------------- quantizers


def quantize_activation(
    x: torch.Tensor,
    *,
    dtype: torch.dtype = torch.int8,
    granularity: str = "per_token",
    symmetric: bool = True,
    check_finite: bool = False,
    scale_ub: Optional[torch.Tensor] = None,
) -> QuantizedActivation:
    """Dynamically quantize an ``(M, K)`` activation.

    Args:
        x: ``(M, K)`` float16/bfloat16/float32/float64 tensor (CPU or CUDA).
        dtype: ``torch.int8`` or ``torch.float8_e4m3fn``.
        granularity: ``"per_tensor"`` (``scale_a`` 0-dim) or ``"per_token"``
            (one scale per row, ``scale_a`` ``(M, 1)``).
        symmetric: symmetric (``scale = amax / qmax``, no zero point) or
            asymmetric int8 (``scale``/``azp`` from :func:`scale_azp_from_range`
            over the group's ``[min, max]``, widened to contain 0: min -> -128,
            max -> 127 exactly).
        check_finite: raise on NaN/Inf input (synchronises with the device);
            otherwise such rows get scale NaN and q = 0 (module docstring).
        scale_ub: optional upper bound (float or one-element tensor) on the
            absmax used for symmetric scales (values beyond saturate).

    Returns:
        :class:`QuantizedActivation` ``(a, scale_a, azp)``; ``a`` contiguous,
        rounded half-to-even and saturated (see module docstring).

    Raises:
        InvalidArgumentError: wrong type/dtype/rank, empty, NaN/Inf, bad option.
    """
    check_float_tensor(x, "x", ndim=2, check_finite=check_finite)
    check_quant_dtype(dtype)
    check_choice(granularity, "granularity", ("per_tensor", "per_token"))
    _check_symmetric_for_dtype(symmetric, dtype)

    x32 = x.detach().to(torch.float32).contiguous()
    per_token = granularity == "per_token"
    if symmetric:
        amax = x32.abs().amax(dim=1, keepdim=True) if per_token else x32.abs().amax()
        if scale_ub is not None:  # vLLM's upper bound on the absmax; a NaN/Inf amax stays non-finite
            ub = torch.as_tensor(scale_ub, dtype=torch.float32, device=x32.device).reshape(())
            amax = torch.where(torch.isfinite(amax), torch.minimum(amax, ub), amax)
        scale = _scale_from_amax_f32(amax, _qmax(dtype))
        return QuantizedActivation(_quantize_elementwise(x32, scale, None, dtype), scale, None)
    if per_token:
        mn, mx = x32.amin(dim=1, keepdim=True), x32.amax(dim=1, keepdim=True)
    else:
        mn, mx = x32.amin(), x32.amax()
    scale, azp = _scale_azp_f32(mn, mx)
    return QuantizedActivation(_quantize_elementwise(x32, scale, azp, dtype), scale, azp)


def quantize_weight(
    w: torch.Tensor,
    *,
    dtype: torch.dtype = torch.int8,
    granularity: str = "per_channel",
) -> QuantizedWeight:
    """Symmetrically quantize an ``(N, K)`` weight (``nn.Linear.weight`` layout).

    Args:
        w: ``(N, K)`` floating-point tensor.
        dtype: ``torch.int8`` (``scale = amax / 127``) or ``torch.float8_e4m3fn``
            (``scale = amax / 448``).
        granularity: ``"per_channel"`` (one scale per output channel ``n``,
            ``scale_b`` ``(1, N)``) or ``"per_tensor"`` (``scale_b`` 0-dim).

    Returns:
        :class:`QuantizedWeight` with ``w_q`` ``(N, K)`` contiguous; its ``b``
        property is the ``(K, N)`` column-major view the ops take.

    Raises:
        InvalidArgumentError: wrong type/dtype/rank, empty, NaN/Inf, bad option.
    """
    check_float_tensor(w, "w", ndim=2)
    check_quant_dtype(dtype)
    check_choice(granularity, "granularity", ("per_tensor", "per_channel"))

    w32 = w.detach().to(torch.float32).contiguous()
    qmax = _qmax(dtype)
    if granularity == "per_channel":
        scale_rows = _scale_from_amax_f32(w32.abs().amax(dim=1, keepdim=True), qmax)  # (N, 1)
        w_q = _quantize_elementwise(w32, scale_rows, None, dtype)
        return QuantizedWeight(w_q, scale_rows.reshape(1, -1).contiguous())
    scale = _scale_from_amax_f32(w32.abs().amax(), qmax)
    return QuantizedWeight(_quantize_elementwise(w32, scale, None, dtype), scale)


def quantize_static(
    x: torch.Tensor,
    scale,
    azp=None,
    *,
    dtype: torch.dtype = torch.int8,
    check_finite: bool = False,
) -> QuantizedActivation:
    """Quantize an ``(M, K)`` activation with given (e.g. calibrated) scale and zero point.

    ``q = clamp(round(x / scale) + azp, -128, 127)`` for int8 (round half to
    even; values beyond the range saturate), ``q = fp8(clamp(x / scale, -448,
    448))`` for fp8.

    Args:
        x: ``(M, K)`` floating-point tensor.
        scale: positive float, or float tensor with one element (per-tensor,
            returned as 0-dim) or shape ``(M, 1)`` (per-token).  Converted to
            float32 (the value the kernels see) and moved to ``x``'s device.
        azp: ``None`` (symmetric), an int, or an integer tensor with one element
            or shape ``(M, 1)``; int8 only.  Returned as int32.
        dtype: ``torch.int8`` or ``torch.float8_e4m3fn``.

    Raises:
        InvalidArgumentError: bad ``x``, ``scale`` (shape, non-positive, NaN/Inf),
            ``azp`` (dtype, shape, out of int32) or ``dtype``.
    """
    check_float_tensor(x, "x", ndim=2, check_finite=check_finite)
    check_quant_dtype(dtype)
    m = x.shape[0]

    s = _as_float_tensor(scale, "scale")
    if s.numel() == 1:
        s = s.reshape(())
    elif tuple(s.shape) != (m, 1):
        raise InvalidArgumentError("scale", f"expected one element or shape ({m}, 1), got {tuple(s.shape)}")
    s = s.to(device=x.device, dtype=torch.float32)
    if not bool(torch.isfinite(s).all()) or not bool((s > 0).all()):
        raise InvalidArgumentError("scale", "must be finite and > 0 (after conversion to float32)")

    z = None
    if azp is not None:
        if dtype != torch.int8:
            raise InvalidArgumentError("azp", "zero points are only supported for torch.int8")
        if isinstance(azp, torch.Tensor):
            if azp.dtype.is_floating_point or azp.dtype.is_complex or azp.dtype == torch.bool:
                raise InvalidArgumentError("azp", f"expected an integer tensor, got dtype {azp.dtype}")
            z64 = azp.to(torch.int64)
        elif isinstance(azp, numbers.Integral) and not isinstance(azp, bool):
            z64 = torch.tensor(int(azp), dtype=torch.int64)
        else:
            raise InvalidArgumentError("azp", f"expected an int or an integer tensor, got {type(azp).__name__}")
        if z64.numel() == 1:
            z64 = z64.reshape(())
        elif tuple(z64.shape) != (m, 1):
            raise InvalidArgumentError("azp", f"expected one element or shape ({m}, 1), got {tuple(z64.shape)}")
        if bool((z64.abs() > 2**31 - 1).any()):
            raise InvalidArgumentError("azp", "does not fit in int32")
        z = z64.to(device=x.device, dtype=torch.int32)

    x32 = x.detach().to(torch.float32).contiguous()
    # rows holding a NaN or an infinity quantize to 0 (see static_row_scale for how they are reported)
    return QuantizedActivation(_quantize_elementwise(x32, static_row_scale(x32, s), z, dtype), s, z)


def static_row_scale(x: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``(M, 1)`` float32: the static ``scale`` for each row of ``x``, NaN for rows holding a NaN or an
    infinity (after the float32 conversion). Static quantization has no data-derived scale to carry
    the non-finite-input rule, so the quantization ops return this per-row scale to the GEMM."""
    x32 = x.detach().to(torch.float32)
    ok = torch.isfinite(x32).all(dim=1, keepdim=True)
    s = scale.to(device=x32.device, dtype=torch.float32).reshape(-1, 1).expand(x32.shape[0], 1)
    return torch.where(ok, s, torch.full_like(s, float("nan")))


# --------------------------------------------------------------------------- dequantize


def dequantize(q: torch.Tensor, scale, azp=None) -> torch.Tensor:
    """Reference dequantization ``scale * (q - azp)`` in float64 (broadcasting).

    ``q`` is int8 or float8_e4m3fn of any shape; ``scale`` (and ``azp``)
    broadcast against it, e.g. ``(M, 1)`` per-token or ``(1, N)`` per-channel
    against a ``(K, N)`` ``b``.
    """
    if not isinstance(q, torch.Tensor) or q.dtype not in (torch.int8, torch.float8_e4m3fn):
        raise InvalidArgumentError("q", "expected an int8 or float8_e4m3fn tensor")
    s = _as_float_tensor(scale, "scale").to(device=q.device, dtype=torch.float64)
    out = q.to(torch.float64)
    if azp is not None:
        z = azp if isinstance(azp, torch.Tensor) else torch.tensor(azp)
        out = out - z.to(device=q.device, dtype=torch.float64)
    return out * s
