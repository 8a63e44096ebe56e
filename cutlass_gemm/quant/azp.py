"""Zero-point correction terms for asymmetric activations (``scaled_mm_azp``).

With activations ``A = s_a (A_q - azp)`` and symmetric weights ``B = s_b B_q``
the epilogue computes::

    out = s_a * s_b * (A_q @ B_q - azp * azp_adj) + bias

where ``azp_adj = 1 @ B_q`` is the row vector of column sums of the quantized
weight as the op sees it (``B_q = w_q.t()``, i.e. the sums over K of each
output channel).  For a per-tensor ``azp`` the product ``azp * azp_adj`` is a
constant row vector, precomputed offline as ``azp_with_adj``; for per-token
``azp`` the kernel forms the outer product itself from ``azp`` ``(M, 1)`` and
``azp_adj`` ``(1, N)``.  All sums are done in int64 and checked to fit int32.
"""

from __future__ import annotations

import numbers

import torch

from cutlass_gemm.errors import InvalidArgumentError

__all__ = ["azp_adj", "azp_with_adj"]

_I32_MIN = -(2**31)
_I32_MAX = 2**31 - 1


def _check_int32_range(t: torch.Tensor, name: str, what: str) -> None:
    if t.numel() and (int(t.min()) < _I32_MIN or int(t.max()) > _I32_MAX):
        raise InvalidArgumentError(
            name, f"{what} overflows int32 (range [{int(t.min())}, {int(t.max())}])"
        )


def azp_adj(w_q: torch.Tensor) -> torch.Tensor:
    """Column sums of the quantized weight as the op sees it.

    Args:
        w_q: ``(N, K)`` int8 quantized weight (the op's ``b`` is ``w_q.t()``).

    Returns:
        int32 ``(1, N)`` on ``w_q``'s device, entry ``n = sum_k w_q[n, k]``.

    Raises:
        InvalidArgumentError: not an int8 2-D non-empty tensor; a sum overflowing int32.
    """
    if not isinstance(w_q, torch.Tensor):
        raise InvalidArgumentError("w_q", f"expected a torch.Tensor, got {type(w_q).__name__}")
    if w_q.dtype != torch.int8:
        raise InvalidArgumentError("w_q", f"expected an int8 tensor, got dtype {w_q.dtype}")
    if w_q.dim() != 2:
        raise InvalidArgumentError("w_q", f"expected a 2-D (N, K) tensor, got shape {tuple(w_q.shape)}")
    if w_q.numel() == 0:
        raise InvalidArgumentError("w_q", f"tensor is empty (shape {tuple(w_q.shape)})")
    sums = w_q.to(torch.int64).sum(dim=1)
    _check_int32_range(sums, "w_q", "a column sum")
    return sums.to(torch.int32).reshape(1, -1)


def _azp_scalar(azp) -> int:
    if isinstance(azp, torch.Tensor):
        if azp.dtype.is_floating_point or azp.dtype.is_complex or azp.dtype == torch.bool:
            raise InvalidArgumentError("azp", f"expected an integer tensor, got dtype {azp.dtype}")
        if azp.numel() != 1:
            raise InvalidArgumentError(
                "azp",
                f"expected a per-tensor zero point (one element), got shape {tuple(azp.shape)}; "
                "for per-token zero points pass azp and azp_adj to the kernel instead",
            )
        return int(azp.reshape(()).item())
    if isinstance(azp, numbers.Integral) and not isinstance(azp, bool):
        return int(azp)
    raise InvalidArgumentError("azp", f"expected an int or an integer tensor, got {type(azp).__name__}")


def azp_with_adj(azp, azp_adj: torch.Tensor) -> torch.Tensor:
    """``azp * azp_adj`` for a per-tensor zero point, as int32 ``(1, N)``.

    Args:
        azp: per-tensor zero point: an int or a one-element integer tensor.
        azp_adj: int32 ``(1, N)`` (or ``(N,)``) from :func:`azp_adj`.

    Returns:
        int32 ``(1, N)`` on ``azp_adj``'s device.

    Raises:
        InvalidArgumentError: ``azp`` not a per-tensor integer, ``azp_adj`` not
            int32 ``(1, N)``/``(N,)``, or the product overflowing int32
            (computed in int64 and checked).
    """
    z = _azp_scalar(azp)
    if not isinstance(azp_adj, torch.Tensor):
        raise InvalidArgumentError("azp_adj", f"expected a torch.Tensor, got {type(azp_adj).__name__}")
    if azp_adj.dtype != torch.int32:
        raise InvalidArgumentError("azp_adj", f"expected an int32 tensor, got dtype {azp_adj.dtype}")
    if not (azp_adj.dim() == 1 or (azp_adj.dim() == 2 and azp_adj.shape[0] == 1)) or azp_adj.numel() == 0:
        raise InvalidArgumentError("azp_adj", f"expected shape (1, N) or (N,), got {tuple(azp_adj.shape)}")
    prod = azp_adj.to(torch.int64).reshape(1, -1) * z
    _check_int32_range(prod, "azp", f"azp * azp_adj (azp={z})")
    return prod.to(torch.int32)
