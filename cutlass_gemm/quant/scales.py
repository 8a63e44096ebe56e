"""Scale rules and element-wise quantization shared by the quantizers (see :mod:`.quantize` for the
conventions): float32 reductions, scales computed in float64 and rounded to float32, the correctly
rounded float32 reciprocal, round-half-to-even and saturation."""

from __future__ import annotations

import numbers
from typing import Optional, Tuple

import torch

from cutlass_gemm.errors import InvalidArgumentError

from ._checks import check_quant_dtype

__all__ = ["INT8_MIN", "INT8_MAX", "FP8_E4M3_MAX", "scale_from_amax", "scale_azp_from_range"]

INT8_MIN = -128
INT8_MAX = 127
#: Largest finite value of ``torch.float8_e4m3fn``.
FP8_E4M3_MAX = 448.0

_FLT_TINY = torch.finfo(torch.float32).tiny  # smallest normal float32, 2**-126
_MAX_SCALE_NUDGES = 64


# --------------------------------------------------------------------------- helpers


def _const(value: float, like: torch.Tensor) -> torch.Tensor:
    """A 0-dim tensor on ``like``'s device and dtype (so CUDA divides, not multiplies by a reciprocal)."""
    return torch.full((), value, dtype=like.dtype, device=like.device)


def _qmax(dtype: torch.dtype) -> float:
    return float(INT8_MAX) if dtype == torch.int8 else FP8_E4M3_MAX


def _as_float_tensor(value, name: str) -> torch.Tensor:
    if isinstance(value, torch.Tensor):
        if not value.is_floating_point():
            raise InvalidArgumentError(name, f"expected a floating-point tensor, got dtype {value.dtype}")
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidArgumentError(name, f"expected a float or a floating-point tensor, got {type(value).__name__}")
    return torch.tensor(float(value), dtype=torch.float64)


def _scale_from_amax_f32(amax: torch.Tensor, qmax: float) -> torch.Tensor:
    """float32 scale ``amax / qmax`` (computed in float64, rounded once), 1.0 where ``amax == 0``."""
    a64 = amax.to(torch.float64)
    s = torch.div(a64, _const(qmax, a64)).to(torch.float32)
    s = torch.clamp_min(s, _FLT_TINY)
    s = torch.where(a64 > 0, s, torch.ones_like(s))
    return torch.where(torch.isfinite(a64), s, torch.full_like(s, float("nan")))


def _scale_azp_f32(mn: torch.Tensor, mx: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """Asymmetric int8 scale and zero point for the range ``[min(mn, 0), max(mx, 0)]`` (float32 in).

    See :func:`scale_azp_from_range` for the formula and its guarantees.
    """
    mn, mx = mn.to(torch.float32), mx.to(torch.float32)
    finite = torch.isfinite(mn) & torch.isfinite(mx)
    mn = torch.where(finite, torch.clamp_max(mn, 0.0), torch.zeros_like(mn))
    mx = torch.where(finite, torch.clamp_min(mx, 0.0), torch.zeros_like(mx))
    rng = mx.to(torch.float64) - mn.to(torch.float64)
    degenerate = rng == 0
    s = torch.div(rng, _const(255.0, rng)).to(torch.float32)
    s = torch.clamp_min(s, _FLT_TINY)
    s = torch.where(degenerate, torch.ones_like(s), s)
    zero = torch.zeros_like(s)
    for _ in range(_MAX_SCALE_NUDGES):
        inv = _reciprocal(s)
        lo = torch.round(torch.mul(mn, inv))
        hi = torch.round(torch.mul(mx, inv))
        bad = (hi - lo < 255.0) & ~degenerate
        if s.device.type == "cpu" and not bool(bad.any()):  # a free check on CPU; elsewhere all steps run
            break
        # Shrink the scale by one ulp where max would not reach 127: the spread
        # max/s - min/s grows, so after a step or two both ends saturate.
        s = torch.where(bad, torch.nextafter(s, zero), s)
    azp = torch.where(degenerate, torch.zeros_like(lo), -128.0 - lo).to(torch.int32)
    s = torch.where(finite, s, torch.full_like(s, float("nan")))
    return s, azp


def _reciprocal(scale: torch.Tensor) -> torch.Tensor:
    """Correctly rounded float32 ``1 / scale`` (a tensor division, never a host-scalar one)."""
    scale = scale.to(torch.float32)
    return torch.div(_const(1.0, scale), scale)


def _quantize_elementwise(
    x32: torch.Tensor, scale: torch.Tensor, azp: Optional[torch.Tensor], dtype: torch.dtype
) -> torch.Tensor:
    """``q = saturate(round(x / scale) + azp)`` with float32 ops; ``scale``/``azp`` broadcast on x's device."""
    y = torch.mul(x32, _reciprocal(scale))
    if dtype == torch.int8:
        y = torch.round(y)
        if azp is not None:
            y = y + azp.to(torch.float32)
    y = torch.where(torch.isfinite(scale), y, torch.zeros_like(y))  # NaN-scale groups -> exactly 0
    if dtype == torch.int8:
        return torch.clamp(y, INT8_MIN, INT8_MAX).to(torch.int8)
    return torch.clamp(y, -FP8_E4M3_MAX, FP8_E4M3_MAX).to(torch.float8_e4m3fn)


def _check_symmetric_for_dtype(symmetric, dtype) -> bool:
    if not isinstance(symmetric, bool):
        raise InvalidArgumentError("symmetric", f"expected a bool, got {type(symmetric).__name__}")
    if not symmetric and dtype != torch.int8:
        raise InvalidArgumentError("symmetric", "asymmetric quantization (zero points) is only supported for torch.int8")
    return symmetric


# --------------------------------------------------------------------------- scales


def scale_from_amax(amax, dtype: torch.dtype = torch.int8) -> torch.Tensor:
    """Symmetric scale for an absolute maximum: ``scale = amax / qmax`` as float32.

    ``qmax`` is 127 for int8 and 448 for fp8 e4m3.  The division is done in
    float64 and rounded once to float32.  ``amax == 0`` gives scale 1.0; a
    positive ``amax`` whose scale would underflow gets the smallest normal
    float32.  Works element-wise on a tensor of amaxes (same shape out).

    Raises:
        InvalidArgumentError: ``amax`` negative, NaN or Inf; ``dtype`` unsupported.
    """
    check_quant_dtype(dtype)
    amax_t = _as_float_tensor(amax, "amax")
    if amax_t.numel() == 0:
        raise InvalidArgumentError("amax", "tensor is empty")
    if not bool(torch.isfinite(amax_t).all()) or bool((amax_t < 0).any()):
        raise InvalidArgumentError("amax", "must be finite and >= 0")
    return _scale_from_amax_f32(amax_t, _qmax(dtype))


def scale_azp_from_range(min_val, max_val) -> Tuple[torch.Tensor, torch.Tensor]:
    """Asymmetric int8 scale (float32) and zero point (int32) for a range ``[min_val, max_val]``.

    The range is first widened to contain 0 (``lo = min(min_val, 0)``,
    ``hi = max(max_val, 0)``) and rounded to float32, so 0 is exactly
    representable (it quantizes to ``azp``) and ``azp`` always lies in
    ``[-128, 127]``.  Then::

        scale = (hi - lo) / 255            # float64, rounded to float32
        azp   = -128 - round(lo * (1 / scale))   # round-half-to-even, float32

    If, through rounding, ``round(hi * (1 / scale)) + azp < 127``, the scale is
    decreased by one float32 ulp at a time until it is not (usually zero or one
    step).  Consequently quantizing with these parameters
    (``q = clamp(round(x * (1 / scale)) + azp, -128, 127)``) maps ``lo`` to exactly
    -128 and ``hi`` to exactly 127, i.e. a tensor's min and max land on the
    integer ends whenever it contains both signs (or 0); a tensor that is
    exactly symmetric (``min == -max``) gets ``azp == 0``.  A zero-width range
    gives scale 1.0 and azp 0.

    Element-wise on tensors: ``min_val`` and ``max_val`` must broadcast.

    Raises:
        InvalidArgumentError: NaN/Inf, or ``min_val > max_val``.
    """
    mn = _as_float_tensor(min_val, "min_val")
    mx = _as_float_tensor(max_val, "max_val")
    for t, name in ((mn, "min_val"), (mx, "max_val")):
        if t.numel() == 0:
            raise InvalidArgumentError(name, "tensor is empty")
        if not bool(torch.isfinite(t).all()):
            raise InvalidArgumentError(name, "contains NaN or Inf values")
    if mn.device != mx.device:
        mn = mn.to(mx.device)
    if bool((mn > mx).any()):
        raise InvalidArgumentError("min_val", "must be <= max_val")
    mn, mx = torch.broadcast_tensors(mn, mx)
    return _scale_azp_f32(mn, mx)
