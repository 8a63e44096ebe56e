"""Creation (and caching) of cuBLASLt matrix layouts and transform descriptors; typed attribute setters."""
from __future__ import annotations

import ctypes
from dataclasses import dataclass

import torch

from . import _lib
from ._context import Descriptor, DescriptorCache
from .enums import (
    CudaDataType,
    MatmulDescAttribute,
    MatmulPreferenceAttribute,
    MatrixLayoutAttribute,
    MatrixTransformDescAttribute,
    Order,
)

__all__ = [
    "TORCH_TO_CUDA", "LayoutSpec", "matrix_layout", "transform_desc", "set_int32", "new_descriptor",
    "clear_caches",
]

TORCH_TO_CUDA = {
    torch.int8: CudaDataType.CUDA_R_8I,
    torch.int32: CudaDataType.CUDA_R_32I,
    torch.float32: CudaDataType.CUDA_R_32F,
}


@dataclass(frozen=True)
class LayoutSpec:
    """A cublasLtMatrixLayout: element type, rows, cols, leading dimension and memory order."""

    dtype: torch.dtype
    rows: int
    cols: int
    ld: int
    order: Order

    def describe(self) -> str:
        return f"{self.order.name} {self.rows}x{self.cols} ld={self.ld} {str(self.dtype).replace('torch.', '')}"


def set_attr(setter: str, desc: Descriptor, attr: int, value: ctypes._SimpleCData, what: str) -> None:
    _lib.call(setter, desc.ptr, int(attr), ctypes.addressof(value), ctypes.sizeof(value), detail=what)


def set_int32(setter: str, desc: Descriptor, attr: int, value: int, what: str) -> None:
    set_attr(setter, desc, attr, ctypes.c_int32(int(value)), what)


def new_descriptor(create: str, destroy: str, *args, detail: str = "") -> Descriptor:
    return Descriptor(_lib.call(create, *args, detail=detail), destroy)


def _create_layout(spec: LayoutSpec) -> Descriptor:
    what = f"layout {spec.describe()}"
    desc = new_descriptor(
        "cublasLtMatrixLayoutCreate", "cublasLtMatrixLayoutDestroy",
        int(TORCH_TO_CUDA[spec.dtype]), int(spec.rows), int(spec.cols), int(spec.ld), detail=what,
    )
    if spec.order is not Order.COL:  # COL is the default; set it anyway for every other order
        set_int32("cublasLtMatrixLayoutSetAttribute", desc, MatrixLayoutAttribute.ORDER, int(spec.order), what)
    return desc


_layouts = DescriptorCache()
_transform_descs = DescriptorCache(capacity=64)


def matrix_layout(device_index: int, spec: LayoutSpec) -> Descriptor:
    """Cached layout, keyed by (device, dtype, rows, cols, ld, order)."""
    return _layouts.get((device_index, spec), lambda: _create_layout(spec))


def _create_transform_desc(scale_type: CudaDataType, transa: int) -> Descriptor:
    what = f"transform desc scale={scale_type.name} transa={transa}"
    desc = new_descriptor(
        "cublasLtMatrixTransformDescCreate", "cublasLtMatrixTransformDescDestroy", int(scale_type), detail=what
    )
    if transa:
        set_int32(
            "cublasLtMatrixTransformDescSetAttribute", desc, MatrixTransformDescAttribute.TRANSA, transa, what
        )
    return desc


def transform_desc(device_index: int, dtype: torch.dtype, scale_type: CudaDataType, transa: int) -> Descriptor:
    """Cached transform descriptor, keyed by (device, dtype, scale type, transa)."""
    key = (device_index, dtype, scale_type, transa)
    return _transform_descs.get(key, lambda: _create_transform_desc(scale_type, transa))


def set_matmul_int32(desc: Descriptor, attr: MatmulDescAttribute, value: int, what: str) -> None:
    set_int32("cublasLtMatmulDescSetAttribute", desc, attr, value, what)


def set_preference(desc: Descriptor, attr: MatmulPreferenceAttribute, value: int, what: str) -> None:
    ctype = ctypes.c_uint64 if attr == MatmulPreferenceAttribute.MAX_WORKSPACE_BYTES else ctypes.c_uint32
    set_attr("cublasLtMatmulPreferenceSetAttribute", desc, attr, ctype(int(value)), what)


def clear_caches() -> None:
    """Drop the cached layouts and transform descriptors (they are destroyed once unreferenced)."""
    _layouts.clear()
    _transform_descs.clear()
