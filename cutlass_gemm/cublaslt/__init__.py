"""cuBLASLt driven from Python through NVIDIA's nvmath-python bindings (`nvmath.bindings.cublasLt`, see `_lib`).

* :mod:`.layouts` -- numpy reference of the IMMA memory orders COL32, COL4_4R2_8C, COL32_2R_4R4.
* :func:`transform` / :func:`untransform` -- cublasLtMatrixTransform between row-major torch int8/int32
  matrices and those orders, with an explicit device-side gather fallback where cuBLASLt refuses
  (:func:`transform_backend` says which path ran).
* :func:`int8_matmul` -- C = alpha * (A @ B^T), int8 in, int32 / int8 / float32 out, optional per-channel
  float32 alpha vector; plain "TN" or the IMMA-order pipeline (:func:`select_order`).
* :func:`ft_int8_linear` -- a FasterTransformer-style quantize / GEMM / dequantize example.

Importing needs neither a GPU nor libcublasLt; using cuBLASLt without the library raises
:class:`CublasLtNotFoundError`.
"""
from ._lib import is_available, library_path
from .enums import Order
from .errors import CublasLtError, CublasLtFallbackWarning, CublasLtNotFoundError, UnsupportedOrderError
from . import layouts
from .matmul import imma_matmul, int8_matmul, matmul_backend, select_order
from .pipeline import QuantizedWeight, ft_int8_linear, quantize_weight
from .transforms import transform, transform_backend, untransform, untransform_to_col_major

__all__ = [
    "Order", "layouts", "transform", "untransform", "untransform_to_col_major", "transform_backend",
    "int8_matmul", "imma_matmul", "select_order", "matmul_backend", "ft_int8_linear", "quantize_weight",
    "QuantizedWeight", "CublasLtError", "CublasLtNotFoundError", "UnsupportedOrderError",
    "CublasLtFallbackWarning", "is_available", "library_path",
]
