"""Pure-numpy reference of cuBLASLt's IMMA memory orders (no GPU, no libcublasLt).

A matrix of R rows and C columns (row r, column c, zero-based) is stored in 32-column groups; group g = c // 32
starts at element ``g * ld``. Within a group (t = c % 32):

* COL32         ld = 32*R,  offset = g*ld + r*32 + t
* COL4_4R2_8C   Rp = R rounded up to 8,  ld = 32*Rp,
                offset = g*ld + ((r//8)*8 + (r%2)*4 + t//8)*32 + ((4 if c%8 >= 4 else 0) + (r%8)//2)*4 + c%4
* COL32_2R_4R4  Rp = R rounded up to 32, ld = 32*Rp, u = r % 32,
                offset = g*ld + (r//32)*1024 + (((u%8)//2*4 + u//8)*2 + u%2)*32 + t

These are the formulas measured element by element against cublasLtMatrixTransform on an H100
(shared/FINDINGS.md); COL32_2R_4R4's in-tile term is the one printed in the cuBLASLt docs. The buffer holds
``ceil(C/32) * ld`` elements; the positions no (r, c) maps to are padding (rows beyond R up to Rp, columns
beyond C up to the next multiple of 32). Offsets count elements, so they hold for int8 and int32 alike.
"""
from __future__ import annotations

import numbers

import numpy as np

from cutlass_gemm.errors import InvalidArgumentError

from .enums import Order

__all__ = [
    "IMMA_ORDERS", "row_padding", "padded_rows", "leading_dim", "buffer_size", "offset", "offsets",
    "offsets_from_indices",
    "to_order", "from_order", "padding_mask",
]

IMMA_ORDERS = (Order.COL32, Order.COL4_4R2_8C, Order.COL32_2R_4R4)
_ROW_MULTIPLE = {Order.COL32: 1, Order.COL4_4R2_8C: 8, Order.COL32_2R_4R4: 32}


def _imma_order(order, argument: str = "order") -> Order:
    o = Order.parse(order, argument)
    if o not in IMMA_ORDERS:
        raise InvalidArgumentError(
            argument, f"{o.name} is not a tiled IMMA order; expected one of {[x.name for x in IMMA_ORDERS]}"
        )
    return o


def _dim(value, argument: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidArgumentError(argument, f"expected a positive int, got {value!r}")
    if int(value) < 1:
        raise InvalidArgumentError(argument, f"must be >= 1, got {int(value)}")
    return int(value)


def row_padding(order) -> int:
    """The multiple the row count is padded to: 1 (COL32), 8 (COL4_4R2_8C), 32 (COL32_2R_4R4)."""
    return _ROW_MULTIPLE[_imma_order(order)]


def padded_rows(rows: int, order) -> int:
    m = row_padding(order)
    rows = _dim(rows, "rows")
    return (rows + m - 1) // m * m


def leading_dim(rows: int, order) -> int:
    """cuBLASLt leading dimension of the order: elements from one 32-column group to the next."""
    return 32 * padded_rows(rows, order)


def buffer_size(rows: int, cols: int, order) -> int:
    """Number of elements of the buffer holding an R x C matrix in the order (padding included)."""
    cols = _dim(cols, "cols")
    return (cols + 31) // 32 * leading_dim(rows, order)


def offset(r: int, c: int, rows: int, order) -> int:
    """Closed-form element offset of (r, c) in an R-row matrix (scalar; mirrors FINDINGS.md literally)."""
    o = _imma_order(order)
    rows = _dim(rows, "rows")
    for name, v in (("r", r), ("c", c)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral):
            raise InvalidArgumentError(name, f"expected an int index, got {v!r}")
    if not (0 <= r < rows) or c < 0:
        raise InvalidArgumentError("r", f"(r={r}, c={c}) outside a matrix of {rows} rows")
    ld = leading_dim(rows, o)
    if o is Order.COL32:
        return (c // 32) * ld + r * 32 + c % 32
    if o is Order.COL4_4R2_8C:
        return (c // 32) * ld + ((r // 8) * 8 + (r % 2) * 4 + (c % 32) // 8) * 32 + (
            (4 if c % 8 >= 4 else 0) + (r % 8) // 2
        ) * 4 + c % 4
    u = r % 32
    return (c // 32) * ld + (r // 32) * 1024 + (((u % 8) // 2 * 4 + u // 8) * 2 + u % 2) * 32 + c % 32


def offsets_from_indices(r, c, rows: int, order):
    """The closed-form offsets for broadcastable integer arrays ``r`` (row indices) and ``c`` (column indices)
    of an R-row matrix. Array-agnostic: only ``+ * // %`` on the operands, so numpy int64 arrays and torch
    int64 tensors (on any device) both work -- the one vectorised copy of the formulas, used by
    :func:`offsets` here and by the device-side gather of :mod:`cutlass_gemm.cublaslt.transforms`.
    ``(c % 8) // 4 * 4`` is FINDINGS.md's ``(4 if c % 8 >= 4 else 0)``."""
    o = _imma_order(order)
    ld = leading_dim(rows, o)
    group = (c // 32) * ld
    if o is Order.COL32:
        return group + r * 32 + c % 32
    if o is Order.COL4_4R2_8C:
        tile_row = (r // 8) * 8 + (r % 2) * 4 + (c % 32) // 8
        tile_col = ((c % 8) // 4 * 4 + (r % 8) // 2) * 4 + c % 4
        return group + tile_row * 32 + tile_col
    u = r % 32
    return group + (r // 32) * 1024 + (((u % 8) // 2 * 4 + u // 8) * 2 + u % 2) * 32 + c % 32


def offsets(rows: int, cols: int, order) -> np.ndarray:
    """int64 array (rows, cols): the element offset of every (r, c) (vectorised closed form)."""
    o = _imma_order(order)
    rows, cols = _dim(rows, "rows"), _dim(cols, "cols")
    r = np.arange(rows, dtype=np.int64)[:, None]
    c = np.arange(cols, dtype=np.int64)[None, :]
    return offsets_from_indices(r, c, rows, o)


def padding_mask(rows: int, cols: int, order) -> np.ndarray:
    """bool array of buffer_size: True at the padding positions (those no (r, c) maps to)."""
    mask = np.ones(buffer_size(rows, cols, order), dtype=bool)
    mask[offsets(rows, cols, order).ravel()] = False
    return mask


def _matrix(x, argument: str) -> np.ndarray:
    if not isinstance(x, np.ndarray):
        raise InvalidArgumentError(argument, f"expected a numpy.ndarray, got {type(x).__name__}")
    if x.ndim != 2:
        raise InvalidArgumentError(argument, f"expected a 2-D matrix, got shape {x.shape}")
    if x.shape[0] < 1 or x.shape[1] < 1:
        raise InvalidArgumentError(argument, f"empty matrix of shape {x.shape}")
    return x


def to_order(x: np.ndarray, order, fill=0) -> np.ndarray:
    """Row-major (R, C) matrix -> 1-D buffer in the order (padding set to ``fill``), dtype kept."""
    x = _matrix(x, "x")
    rows, cols = x.shape
    try:
        buf = np.full(buffer_size(rows, cols, order), fill, dtype=x.dtype)
    except (TypeError, ValueError, OverflowError) as exc:
        raise InvalidArgumentError("fill", f"{fill!r} is not a value of dtype {x.dtype} ({exc})") from None
    buf[offsets(rows, cols, order)] = x
    return buf


def from_order(buf: np.ndarray, order, rows: int, cols: int) -> np.ndarray:
    """1-D buffer in the order -> row-major (rows, cols) matrix (padding ignored)."""
    if not isinstance(buf, np.ndarray):
        raise InvalidArgumentError("buf", f"expected a numpy.ndarray, got {type(buf).__name__}")
    if buf.ndim != 1:
        raise InvalidArgumentError("buf", f"expected a 1-D buffer, got shape {buf.shape}")
    need = buffer_size(rows, cols, order)
    if buf.size < need:
        raise InvalidArgumentError(
            "buf", f"{buf.size} elements, but a {rows}x{cols} {Order.parse(order).name} buffer needs {need}"
        )
    return buf[offsets(rows, cols, order)]
