"""Argument validation shared by the quantization toolkit.

Every public function of :mod:`cutlass_gemm.quant` validates its arguments with
these helpers *before* doing any work, and reports problems as
:class:`cutlass_gemm.errors.InvalidArgumentError` naming the offending argument.
"""

from __future__ import annotations

import numbers
from typing import Optional

import torch

from cutlass_gemm.errors import InvalidArgumentError

#: Floating-point dtypes accepted as inputs to quantizers and calibrators.
FLOAT_INPUT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)

#: Quantized dtypes produced by the quantizers.
QUANT_DTYPES = (torch.int8, torch.float8_e4m3fn)


def check_float_tensor(x, name: str, *, ndim: Optional[int] = None, check_finite: bool = True) -> None:
    """Raise unless ``x`` is a non-empty, finite floating-point tensor (of rank ``ndim`` if given)."""
    if not isinstance(x, torch.Tensor):
        raise InvalidArgumentError(name, f"expected a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in FLOAT_INPUT_DTYPES:
        raise InvalidArgumentError(
            name,
            f"expected a floating-point tensor (float16, bfloat16, float32 or float64), got dtype {x.dtype}",
        )
    if ndim is not None and x.dim() != ndim:
        raise InvalidArgumentError(name, f"expected a {ndim}-D tensor, got {x.dim()}-D with shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise InvalidArgumentError(name, f"tensor is empty (shape {tuple(x.shape)})")
    if check_finite and not bool(torch.isfinite(x).all()):
        raise InvalidArgumentError(name, "contains NaN or Inf values")


def check_quant_dtype(dtype, name: str = "dtype") -> torch.dtype:
    """Raise unless ``dtype`` is ``torch.int8`` or ``torch.float8_e4m3fn``."""
    if dtype not in QUANT_DTYPES:
        raise InvalidArgumentError(name, f"expected torch.int8 or torch.float8_e4m3fn, got {dtype!r}")
    return dtype


def check_choice(value, name: str, choices) -> str:
    """Raise unless ``value`` is one of ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidArgumentError(name, f"expected one of {sorted(choices)}, got {value!r}")
    return value


def check_positive_int(value, name: str, *, minimum: int = 1) -> int:
    """Raise unless ``value`` is an integer (not a bool) >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidArgumentError(name, f"expected an integer, got {type(value).__name__}")
    if value < minimum:
        raise InvalidArgumentError(name, f"must be >= {minimum}, got {value}")
    return int(value)


def check_bool(value, name: str) -> bool:
    """Raise unless ``value`` is a bool."""
    if not isinstance(value, bool):
        raise InvalidArgumentError(name, f"expected a bool, got {type(value).__name__}")
    return value
