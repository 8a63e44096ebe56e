"""The records of cublasLtMatrixTransform's decisions (transforms.py): the descriptions it tries, the decision it
remembers per (device, direction, order, dtype), and the public report of it (`transform_backend`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from ._descriptors import LayoutSpec
from .enums import CudaDataType

__all__ = ["TransformBackend"]


@dataclass(frozen=True)
class _Candidate:
    """One way of describing the copy to cuBLASLt. ``staged``: for "to", the source is a column-major copy
    of x; for "from"/"from_col", the destination is a temporary that torch transposes afterwards."""

    src: LayoutSpec
    dst: LayoutSpec
    transa: int
    staged: bool = False

    def describe(self, scale: Optional[CudaDataType] = None) -> str:
        text = f"{self.src.describe()} -> {self.dst.describe()}, transa={self.transa}"
        if self.staged:
            text += ", staged through a torch transpose"
        if scale is not None:
            text += f", scale={scale.name}"
        return f"[{text}]"


@dataclass
class _Choice:
    path: str  # "cublaslt" or "gather"
    index: Optional[int] = None
    scale: Optional[CudaDataType] = None
    description: Optional[str] = None
    reason: Optional[str] = None
    verified: bool = False
    rejected: Tuple[str, ...] = ()


@dataclass(frozen=True)
class TransformBackend:
    """What a (device, direction, order, dtype) of transform runs on. ``path``: "cublaslt" or "gather" (the
    remembered decision); ``index``/``scale``/``description``: the cuBLASLt description in use (None for the
    gather); ``reason``: why the gather runs (cuBLASLt's statuses, or a verification mismatch); ``verified``:
    whether the cuBLASLt description was checked against the gather; ``rejected``: the descriptions cuBLASLt
    refused (or got wrong) before the one in use; ``cublaslt_calls`` / ``gather_calls``: calls that took each
    path so far; ``last_path``: the path of the latest call."""

    path: str
    index: Optional[int]
    scale: Optional[str]
    description: Optional[str]
    reason: Optional[str]
    verified: bool
    rejected: Tuple[str, ...]
    cublaslt_calls: int
    gather_calls: int
    last_path: Optional[str]
