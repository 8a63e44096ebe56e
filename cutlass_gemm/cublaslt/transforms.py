"""cublasLtMatrixTransform between ordinary row-major torch matrices and the IMMA orders
(COL32, COL4_4R2_8C, COL32_2R_4R4), on the tensor's device and torch's current stream.

``transform(x, order)`` turns a row-major (R, C) int8/int32 CUDA tensor into a 1-D buffer of
``layouts.buffer_size(R, C, order)`` elements laid out as cuBLASLt's ``order`` for an R x C matrix (padding
zeroed); ``untransform(buf, order, R, C)`` is the inverse. The element mapping is the one of
:mod:`cutlass_gemm.cublaslt.layouts`.

How the row-major source is described to cuBLASLt: first as a ``CUBLASLT_ORDER_ROW`` R x C matrix with
ld = C; if cuBLASLt refuses that, as its transpose -- a ``CUBLASLT_ORDER_COL`` C x R matrix with ld = C, the
same bytes -- with TRANSA = T (the form the H100 probe ran). Scale type: CUDA_R_32F for int8 (probe-verified);
for int32 first CUDA_R_32I (exact for every int32), then CUDA_R_32F (exact only for |v| <= 2**24). The first
combination cuBLASLt accepts is remembered per (device, dtype, order, direction); ``chosen_strategy`` reports it.
Known limitation (FasterTransformer notes): cuBLASLt may refuse int32 in COL4_4R2_8C; that raises CublasLtError.
"""
from __future__ import annotations

import ctypes
import threading
from typing import Dict, List, Optional, Sequence, Tuple

import torch

from cutlass_gemm.errors import InvalidArgumentError

from . import _lib, layouts
from ._context import handle, stream_ptr
from ._descriptors import LayoutSpec, matrix_layout, transform_desc
from ._validate import cuda_tensor
from .enums import CudaDataType, Operation, Order
from .errors import CublasLtError, status_name

__all__ = ["transform", "untransform", "untransform_to_col_major", "chosen_strategy", "TRANSFORM_DTYPES"]

TRANSFORM_DTYPES = (torch.int8, torch.int32)

_SCALE_TYPES = {
    torch.int8: (CudaDataType.CUDA_R_32F, CudaDataType.CUDA_R_32I),
    torch.int32: (CudaDataType.CUDA_R_32I, CudaDataType.CUDA_R_32F),
}

# (source spec, destination spec, transa): one way of describing the same copy to cuBLASLt.
_Strategy = Tuple[LayoutSpec, LayoutSpec, int]

_chosen_lock = threading.Lock()
_chosen: Dict[tuple, Tuple[int, CudaDataType]] = {}


def _scalars(scale_type: CudaDataType):
    if scale_type is CudaDataType.CUDA_R_32I:
        return ctypes.c_int32(1), ctypes.c_int32(0)
    return ctypes.c_float(1.0), ctypes.c_float(0.0)


def _attempt(device_index: int, dtype: torch.dtype, strategy: _Strategy, scale: CudaDataType,
             src_ptr: int, dst_ptr: int, stream: int, h: int) -> int:
    src_spec, dst_spec, transa = strategy
    desc = transform_desc(device_index, dtype, scale, transa)
    src = matrix_layout(device_index, src_spec)
    dst = matrix_layout(device_index, dst_spec)
    alpha, beta = _scalars(scale)
    return int(_lib.lib().cublasLtMatrixTransform(
        ctypes.c_void_p(h), desc.as_parameter, ctypes.byref(alpha), ctypes.c_void_p(src_ptr), src.as_parameter,
        ctypes.byref(beta), None, None, ctypes.c_void_p(dst_ptr), dst.as_parameter, ctypes.c_void_p(stream),
    ))


def _device_index(device: torch.device) -> int:
    return device.index if device.index is not None else torch.cuda.current_device()


def _run(kind: str, device: torch.device, dtype: torch.dtype, strategies: Sequence[_Strategy],
         src_ptr: int, dst_ptr: int) -> None:
    """Run the first (strategy, scale type) cuBLASLt accepts; remember it; raise CublasLtError if none."""
    index = _device_index(device)
    key = (index, kind)
    with torch.cuda.device(index):
        h = handle(device)
        stream = stream_ptr(device)
        cached = _chosen.get(key)
        if cached is not None:
            i, scale = cached
            status = _attempt(index, dtype, strategies[i], scale, src_ptr, dst_ptr, stream, h)
            if status == 0:
                return
        failures: List[Tuple[int, str]] = []
        for i, strategy in enumerate(strategies):
            for scale in _SCALE_TYPES[dtype]:
                status = _attempt(index, dtype, strategy, scale, src_ptr, dst_ptr, stream, h)
                if status == 0:
                    with _chosen_lock:
                        _chosen[key] = (i, scale)
                    return
                src_spec, dst_spec, transa = strategy
                failures.append((status, f"[{src_spec.describe()} -> {dst_spec.describe()}, transa={transa}, "
                                         f"scale={scale.name}] -> {status_name(status)}"))
    raise CublasLtError(
        failures[0][0], "cublasLtMatrixTransform",
        f"{key[1]} on cuda:{index}; every description was refused: " + "; ".join(f for _, f in failures),
    )


def chosen_strategy(device, dtype: torch.dtype, order, direction: str = "to") -> Optional[Tuple[int, str]]:
    """(strategy index, scale type name) that worked for this (device, dtype, order, direction), or None if
    no transform of that kind ran yet. direction: "to" (row-major -> order), "from" (order -> row-major),
    "from_col" (order -> column-major)."""
    key = (_device_index(torch.device(device)), f"{direction}:{Order.parse(order).name}:{dtype}")
    found = _chosen.get(key)
    return None if found is None else (found[0], found[1].name)


def _imma(order) -> Order:
    o = Order.parse(order)
    if o not in layouts.IMMA_ORDERS:
        raise InvalidArgumentError("order", f"expected one of {[x.name for x in layouts.IMMA_ORDERS]}, got {o.name}")
    return o


def _dims(rows, cols) -> Tuple[int, int]:
    for name, v in (("rows", rows), ("cols", cols)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InvalidArgumentError(name, f"expected a positive int, got {v!r}")
    return rows, cols


def transform(x: torch.Tensor, order) -> torch.Tensor:
    """Row-major (R, C) int8/int32 CUDA tensor -> 1-D buffer in ``order`` (zero padding), same device/dtype.

    Runs on ``torch.cuda.current_stream(x.device)``."""
    o = _imma(order)
    cuda_tensor(x, "x", TRANSFORM_DTYPES, ndim=2)
    rows, cols = (int(s) for s in x.shape)
    ld = layouts.leading_dim(rows, o)
    out = torch.zeros(layouts.buffer_size(rows, cols, o), dtype=x.dtype, device=x.device)
    dst = LayoutSpec(x.dtype, rows, cols, ld, o)
    strategies = (
        (LayoutSpec(x.dtype, rows, cols, cols, Order.ROW), dst, int(Operation.CUBLAS_OP_N)),
        (LayoutSpec(x.dtype, cols, rows, cols, Order.COL), dst, int(Operation.CUBLAS_OP_T)),
    )
    _run(f"to:{o.name}:{x.dtype}", x.device, x.dtype, strategies, x.data_ptr(), out.data_ptr())
    return out


def _check_buffer(buf: torch.Tensor, o: Order, rows: int, cols: int) -> None:
    cuda_tensor(buf, "buf", TRANSFORM_DTYPES)
    need = layouts.buffer_size(rows, cols, o)
    if buf.numel() < need:
        raise InvalidArgumentError(
            "buf", f"{buf.numel()} elements, but a {rows}x{cols} {o.name} buffer needs {need}"
        )


def untransform(buf: torch.Tensor, order, rows: int, cols: int) -> torch.Tensor:
    """1-D buffer holding an R x C matrix in ``order`` -> row-major (R, C) tensor (same device/dtype)."""
    o = _imma(order)
    rows, cols = _dims(rows, cols)
    _check_buffer(buf, o, rows, cols)
    out = torch.empty((rows, cols), dtype=buf.dtype, device=buf.device)
    src = LayoutSpec(buf.dtype, rows, cols, layouts.leading_dim(rows, o), o)
    strategies = (
        (src, LayoutSpec(buf.dtype, rows, cols, cols, Order.ROW), int(Operation.CUBLAS_OP_N)),
        # op(A) = A^T (C x R) stored column-major with ld = C: the same bytes as row-major (R, C).
        (src, LayoutSpec(buf.dtype, cols, rows, cols, Order.COL), int(Operation.CUBLAS_OP_T)),
    )
    _run(f"from:{o.name}:{buf.dtype}", buf.device, buf.dtype, strategies, buf.data_ptr(), out.data_ptr())
    return out


def untransform_to_col_major(buf: torch.Tensor, order, rows: int, cols: int) -> torch.Tensor:
    """1-D buffer holding an R x C matrix in ``order`` -> the matrix in column-major order, returned as the
    row-major (C, R) torch tensor with the same bytes (i.e. the transpose, materialised for free)."""
    o = _imma(order)
    rows, cols = _dims(rows, cols)
    _check_buffer(buf, o, rows, cols)
    out = torch.empty((cols, rows), dtype=buf.dtype, device=buf.device)
    src = LayoutSpec(buf.dtype, rows, cols, layouts.leading_dim(rows, o), o)
    strategies = (
        (src, LayoutSpec(buf.dtype, rows, cols, rows, Order.COL), int(Operation.CUBLAS_OP_N)),
        (src, LayoutSpec(buf.dtype, cols, rows, rows, Order.ROW), int(Operation.CUBLAS_OP_T)),
    )
    _run(f"from_col:{o.name}:{buf.dtype}", buf.device, buf.dtype, strategies, buf.data_ptr(), out.data_ptr())
    return out
