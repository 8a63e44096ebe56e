"""Argument checks run before any cuBLASLt call; each failure is an InvalidArgumentError naming the argument."""
from __future__ import annotations

from typing import Iterable, Optional

import torch

from cutlass_gemm.errors import InvalidArgumentError

__all__ = ["cuda_tensor", "same_device", "alignment", "device_arg", "finite"]


def _dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def cuda_tensor(
    x,
    name: str,
    dtypes: Iterable[torch.dtype],
    ndim: Optional[int] = None,
    contiguous: bool = True,
) -> torch.Tensor:
    """Check that x is a non-empty CUDA tensor of one of dtypes (and rank ndim, and row-major contiguous)."""
    dtypes = tuple(dtypes)
    if not isinstance(x, torch.Tensor):
        raise InvalidArgumentError(name, f"expected a torch.Tensor, got {type(x).__name__}")
    if x.device.type != "cuda":
        raise InvalidArgumentError(name, f"expected a CUDA tensor, got device {x.device}")
    if x.dtype not in dtypes:
        raise InvalidArgumentError(
            name, f"expected dtype {' or '.join(_dtype_name(d) for d in dtypes)}, got {_dtype_name(x.dtype)}"
        )
    if ndim is not None and x.dim() != ndim:
        raise InvalidArgumentError(name, f"expected a {ndim}-D tensor, got shape {tuple(x.shape)}")
    if x.numel() == 0:
        raise InvalidArgumentError(name, f"empty tensor of shape {tuple(x.shape)}")
    if contiguous and not x.is_contiguous():
        raise InvalidArgumentError(
            name, f"expected a contiguous (row-major) tensor, got strides {tuple(x.stride())}; call .contiguous()"
        )
    return x


def same_device(x: torch.Tensor, name: str, reference: torch.Tensor) -> None:
    if x.device != reference.device:
        raise InvalidArgumentError(name, f"on {x.device}, but the other operand is on {reference.device}")


def device_arg(device, name: str = "device") -> torch.device:
    """torch.device(device), with InvalidArgumentError instead of torch's RuntimeError/TypeError."""
    try:
        return torch.device(device)
    except (RuntimeError, TypeError, ValueError) as exc:
        raise InvalidArgumentError(name, f"not a device: {device!r} ({exc})") from None


def finite(x: torch.Tensor, name: str) -> None:
    """InvalidArgumentError unless every element is finite (one reduction and a host sync)."""
    if not bool(torch.isfinite(x).all()):
        raise InvalidArgumentError(name, "contains NaN or infinite values; they cannot be quantized")


def alignment(ptr: int, cap: int = 256) -> int:
    """Largest power of two (<= cap) dividing the address."""
    if ptr == 0:
        return cap
    return min(cap, ptr & -ptr)
