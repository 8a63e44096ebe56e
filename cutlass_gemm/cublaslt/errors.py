"""Typed errors of the cuBLASLt path; each carries the cuBLAS status NAME (e.g. CUBLAS_STATUS_NOT_SUPPORTED)."""
from __future__ import annotations

from typing import Optional

from cutlass_gemm.errors import CutlassGemmError

from .enums import Status

__all__ = [
    "CublasLtError", "CublasLtNotFoundError", "UnsupportedOrderError", "CublasLtFallbackWarning", "status_name",
]


def status_name(status: Optional[int]) -> str:
    """The cublasStatus_t name of an integer status (``UNKNOWN_STATUS_<n>`` when not in the header)."""
    if status is None:
        return "NO_STATUS"
    try:
        return Status(int(status)).name
    except ValueError:
        return f"UNKNOWN_STATUS_{int(status)}"


class CublasLtError(CutlassGemmError, RuntimeError):
    """A cuBLASLt call returned a status other than CUBLAS_STATUS_SUCCESS (or found no algorithm).

    Attributes: ``status`` (int or None), ``status_name`` (str), ``function`` (the cuBLASLt entry point),
    ``detail`` (shapes, types and orders of the request, to debug from a log)."""

    def __init__(self, status: Optional[int], function: str, detail: str = "", name: Optional[str] = None):
        self.status = None if status is None else int(status)
        self.status_name = name if name is not None else status_name(status)
        self.function = function
        self.detail = detail
        message = f"{function} -> {self.status_name}"
        if self.status is not None:
            message += f" ({self.status})"
        if detail:
            message += f": {detail}"
        super().__init__(message)


class CublasLtNotFoundError(CublasLtError):
    """libcublasLt could not be loaded (no GPU stack on this machine); raised only when cuBLASLt is used."""

    def __init__(self, detail: str):
        super().__init__(None, "load libcublasLt", detail, name="LIBRARY_NOT_FOUND")


class UnsupportedOrderError(CublasLtError):
    """cuBLASLt cannot run a matmul with the requested IMMA memory orders (COL32 / COL4_4R2_8C /
    COL32_2R_4R4) on this device: documented for sm75 / sm80 only, not sm90. Detected from the status
    cuBLASLt returns (heuristic or matmul), never assumed."""


class CublasLtFallbackWarning(UserWarning):
    """cuBLASLt refused a request (or, for a transform, produced a result that disagrees with the verified
    index formulas) and an explicit fallback runs instead: the device-side gather for transforms, an int32
    cuBLASLt GEMM plus a torch epilogue, or zero-padded rows for matmuls. Emitted once per kind of request;
    ``transforms.transform_backend`` / ``matmul.matmul_backend`` report which path ran."""
