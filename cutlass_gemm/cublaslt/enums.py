"""Numeric values of the cuBLAS / cuBLASLt / CUDA enums this package passes through ctypes.

Every value was checked against the cuBLASLt 13 headers as mirrored by NVIDIA's nvmath-python 1.0
(`nvmath/bindings/cycublasLt.pxd`, `cycublas.pxd`), against `cuda.bindings.runtime.cudaDataType`
(CUDA_R_*), and against the cuBLASLt documentation (cublasLtOrder_t, cublasLtPointerMode_t).
The FINDINGS probe on the H100 used ORDER=1, COL32=2, COL4_4R2_8C=3, COL32_2R_4R4=4, CUDA_R_8I=3.
Values are ABI: they must never be renumbered.
"""
from __future__ import annotations

import enum

from cutlass_gemm.errors import InvalidArgumentError

__all__ = [
    "Order", "CudaDataType", "ComputeType", "Operation", "PointerMode", "Status",
    "MatrixLayoutAttribute", "MatmulDescAttribute", "MatrixTransformDescAttribute",
    "MatmulPreferenceAttribute",
]


class Order(enum.IntEnum):
    """cublasLtOrder_t: memory order of a matrix."""

    COL = 0
    ROW = 1
    COL32 = 2
    COL4_4R2_8C = 3
    COL32_2R_4R4 = 4

    @classmethod
    def parse(cls, value, argument: str = "order") -> "Order":
        """Accept an Order, its integer value or its name (any case, with or without ``CUBLASLT_ORDER_``)."""
        if isinstance(value, Order):
            return value
        if isinstance(value, bool):  # bool is an int; never a valid order
            raise InvalidArgumentError(argument, f"expected a cublasLt order, got {value!r}")
        if isinstance(value, int):
            try:
                return cls(value)
            except ValueError:
                raise InvalidArgumentError(
                    argument, f"{value} is not a cublasLtOrder_t value (valid: {[int(o) for o in cls]})"
                ) from None
        if isinstance(value, str):
            name = value.strip().upper()
            if name.startswith("CUBLASLT_ORDER_"):
                name = name[len("CUBLASLT_ORDER_"):]
            try:
                return cls[name]
            except KeyError:
                raise InvalidArgumentError(
                    argument, f"unknown order {value!r} (valid: {[o.name for o in cls]})"
                ) from None
        raise InvalidArgumentError(argument, f"expected an Order, int or str, got {type(value).__name__}")


class CudaDataType(enum.IntEnum):
    """cudaDataType_t (library_types.h)."""

    CUDA_R_32F = 0
    CUDA_R_64F = 1
    CUDA_R_16F = 2
    CUDA_R_8I = 3
    CUDA_R_8U = 8
    CUDA_R_32I = 10
    CUDA_R_16BF = 14


class ComputeType(enum.IntEnum):
    """cublasComputeType_t."""

    CUBLAS_COMPUTE_32F = 68
    CUBLAS_COMPUTE_32I = 72
    CUBLAS_COMPUTE_32I_PEDANTIC = 73


class Operation(enum.IntEnum):
    """cublasOperation_t."""

    CUBLAS_OP_N = 0
    CUBLAS_OP_T = 1


class PointerMode(enum.IntEnum):
    """cublasLtPointerMode_t."""

    HOST = 0
    DEVICE = 1
    DEVICE_VECTOR = 2
    ALPHA_DEVICE_VECTOR_BETA_ZERO = 3
    ALPHA_DEVICE_VECTOR_BETA_HOST = 4


class Status(enum.IntEnum):
    """cublasStatus_t."""

    CUBLAS_STATUS_SUCCESS = 0
    CUBLAS_STATUS_NOT_INITIALIZED = 1
    CUBLAS_STATUS_ALLOC_FAILED = 3
    CUBLAS_STATUS_INVALID_VALUE = 7
    CUBLAS_STATUS_ARCH_MISMATCH = 8
    CUBLAS_STATUS_MAPPING_ERROR = 11
    CUBLAS_STATUS_EXECUTION_FAILED = 13
    CUBLAS_STATUS_INTERNAL_ERROR = 14
    CUBLAS_STATUS_NOT_SUPPORTED = 15
    CUBLAS_STATUS_LICENSE_ERROR = 16


class MatrixLayoutAttribute(enum.IntEnum):
    """cublasLtMatrixLayoutAttribute_t (value types: TYPE uint32, ORDER int32)."""

    TYPE = 0
    ORDER = 1
    ROWS = 2
    COLS = 3
    LD = 4
    BATCH_COUNT = 5
    STRIDED_BATCH_OFFSET = 6


class MatmulDescAttribute(enum.IntEnum):
    """cublasLtMatmulDescAttributes_t (all used ones are int32)."""

    COMPUTE_TYPE = 0
    SCALE_TYPE = 1
    POINTER_MODE = 2
    TRANSA = 3
    TRANSB = 4
    TRANSC = 5
    EPILOGUE = 7


class MatrixTransformDescAttribute(enum.IntEnum):
    """cublasLtMatrixTransformDescAttributes_t (all int32)."""

    SCALE_TYPE = 0
    POINTER_MODE = 1
    TRANSA = 2
    TRANSB = 3


class MatmulPreferenceAttribute(enum.IntEnum):
    """cublasLtMatmulPreferenceAttributes_t (MAX_WORKSPACE_BYTES uint64, MIN_ALIGNMENT_* uint32)."""

    SEARCH_MODE = 0
    MAX_WORKSPACE_BYTES = 1
    REDUCTION_SCHEME_MASK = 3
    MIN_ALIGNMENT_A_BYTES = 5
    MIN_ALIGNMENT_B_BYTES = 6
    MIN_ALIGNMENT_C_BYTES = 7
    MIN_ALIGNMENT_D_BYTES = 8
