"""cublasLtMatrixTransform between ordinary row-major torch matrices and the IMMA orders
(COL32, COL4_4R2_8C, COL32_2R_4R4), on the tensor's device and torch's current stream, with an explicit
device-side gather fallback.

``transform(x, order)`` turns a row-major (R, C) int8/int32 CUDA tensor into a 1-D buffer of
``layouts.buffer_size(R, C, order)`` elements laid out as cuBLASLt's ``order`` for an R x C matrix (padding
zeroed); ``untransform(buf, order, R, C)`` is the inverse and ``untransform_to_col_major`` the inverse into
column-major order. The element mapping is the one of :mod:`cutlass_gemm.cublaslt.layouts`.

Candidate descriptions, tried in order until cuBLASLt accepts one (row-major (R, C) = column-major C x R with
ld = C, byte for byte):

* to (row-major -> order): [0] source ROW R x C ld=C, TRANSA=N; [1] source COL C x R ld=C, TRANSA=T;
  [2] source COL R x C ld=R, TRANSA=N on a column-major copy (``x.t().contiguous()``: the call form the H100
  probe ran); [3] source ROW C x R ld=R, TRANSA=T on that copy.
* from (order -> row-major): [0] destination ROW R x C ld=C, N; [1] COL C x R ld=C, T; [2] COL R x C ld=R, N
  into a temporary, then transposed on the device (torch); [3] ROW C x R ld=R, T into the temporary.
* from_col (order -> column-major): [0] COL R x C ld=R, N; [1] ROW C x R ld=R, T; [2] ROW R x C ld=C, N into a
  temporary, then transposed; [3] COL C x R ld=C, T into the temporary.

Scale type: int8 tries CUDA_R_32F (probe-verified), then CUDA_R_32I; int32 only CUDA_R_32I (a float32 scale
would round |v| > 2**24, so int32 falls back to the exact gather rather than accepting that).

Fallback: when cuBLASLt refuses every (description, scale) -- on the H100 (cuBLASLt 13.1) it refused
COL4_4R2_8C -> ROW and -> transposed COL, descriptions [0] and [1] of "from" -- the transform runs as a device-side gather/scatter through an int64 offset table
built with torch from the same closed forms as ``layouts`` (:mod:`._gather`, cached per (R, C, order,
device)); a one-time :class:`CublasLtFallbackWarning` says so. The first description cuBLASLt accepts for a
(device, direction, order, dtype) is checked once against the gather result (one device sync; skipped while a
CUDA graph is being captured); a disagreement is warned about and that description is not used. The decision
is remembered per (device, direction, order, dtype): ``transform_backend`` reports it (path "cublaslt" or
"gather", why, and how many calls took each path). ``backend="cublaslt"`` disables the fallback and the check
(CublasLtError when refused); ``backend="gather"`` forces the gather.
"""
from __future__ import annotations

import ctypes
import threading
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch

from cutlass_gemm.errors import InvalidArgumentError, warn_user

from . import _gather, _lib, layouts
from ._context import handle, stream_ptr
from ._descriptors import LayoutSpec, matrix_layout, transform_desc
from ._transform_records import TransformBackend, _Candidate, _Choice
from ._validate import cuda_tensor, device_arg
from .enums import CudaDataType, Operation, Order
from .errors import CublasLtError, CublasLtFallbackWarning, status_name

__all__ = [
    "transform", "untransform", "untransform_to_col_major", "chosen_strategy", "transform_backend",
    "transform_backends", "TransformBackend", "clear_state", "TRANSFORM_DTYPES", "BACKENDS", "DIRECTIONS",
]

TRANSFORM_DTYPES = (torch.int8, torch.int32)
BACKENDS = ("auto", "cublaslt", "gather")
DIRECTIONS = ("to", "from", "from_col")

_SCALE_TYPES = {
    torch.int8: (CudaDataType.CUDA_R_32F, CudaDataType.CUDA_R_32I),
    torch.int32: (CudaDataType.CUDA_R_32I,),
}

_N, _T = int(Operation.CUBLAS_OP_N), int(Operation.CUBLAS_OP_T)


_lock = threading.Lock()
_choices: Dict[tuple, _Choice] = {}
_counts: Dict[tuple, List[int]] = {}
_last: Dict[tuple, str] = {}
_warned: set = set()
_refused_shapes: Dict[tuple, None] = {}  # (key, "RxC") refused while other shapes of the kind run on cuBLASLt
_REFUSED_SHAPES_CAPACITY = 1024


def clear_state() -> None:
    """Forget remembered decisions, counters, warnings already given and cached offset tables."""
    with _lock:
        _choices.clear()
        _counts.clear()
        _last.clear()
        _warned.clear()
        _refused_shapes.clear()
    _gather.clear_tables()


def _scalars(scale_type: CudaDataType):
    if scale_type is CudaDataType.CUDA_R_32I:
        return ctypes.c_int32(1), ctypes.c_int32(0)
    return ctypes.c_float(1.0), ctypes.c_float(0.0)


def _attempt(device_index: int, dtype: torch.dtype, candidate: _Candidate, scale: CudaDataType,
             src_ptr: int, dst_ptr: int, stream: int, h: int) -> int:
    desc = transform_desc(device_index, dtype, scale, candidate.transa)
    src = matrix_layout(device_index, candidate.src)
    dst = matrix_layout(device_index, candidate.dst)
    alpha, beta = _scalars(scale)
    return _lib.status_of("cublasLtMatrixTransform", h, desc.ptr, ctypes.addressof(alpha), src_ptr, src.ptr,
                          ctypes.addressof(beta), 0, 0, dst_ptr, dst.ptr, stream)


def _device_index(device: torch.device) -> int:
    return device.index if device.index is not None else torch.cuda.current_device()


def _key(index: int, direction: str, o: Order, dtype: torch.dtype) -> tuple:
    return index, f"{direction}:{o.name}:{dtype}"


def _count(key: tuple, path: str) -> None:
    with _lock:
        counts = _counts.setdefault(key, [0, 0])
        counts[0 if path == "cublaslt" else 1] += 1
        _last[key] = path


def _capturing(device: torch.device) -> bool:
    return device.type == "cuda" and torch.cuda.is_current_stream_capturing()


def _warn_once(key: tuple, message: str) -> None:
    with _lock:
        if key in _warned:
            return
        _warned.add(key)
    warn_user(message, CublasLtFallbackWarning)


_Execute = Callable[[_Candidate, CudaDataType, int, int], Tuple[int, Optional[torch.Tensor]]]


def _run(direction: str, o: Order, dtype: torch.dtype, device: torch.device, shape: str,
         candidates: Sequence[_Candidate], execute: _Execute, gather: Callable[[], torch.Tensor],
         backend: str) -> torch.Tensor:
    """Run the remembered description, or search the candidates; fall back to ``gather`` (see module doc)."""
    index = _device_index(device)
    key = _key(index, direction, o, dtype)
    kind = key[1]
    if backend == "gather":
        _count(key, "gather")
        return gather()
    choice = _choices.get(key)
    if backend == "auto" and ((choice is not None and choice.path == "gather") or (key, shape) in _refused_shapes):
        _count(key, "gather")
        return gather()

    failures: List[Tuple[int, str]] = []
    with torch.cuda.device(index):
        h = handle(device)
        stream = stream_ptr(device)
        order_tried = [(i, s) for i in range(len(candidates)) for s in _SCALE_TYPES[dtype]]
        if choice is not None and choice.path == "cublaslt":
            order_tried.remove((choice.index, choice.scale))
            order_tried.insert(0, (choice.index, choice.scale))
        for i, scale in order_tried:
            candidate = candidates[i]
            status, result = execute(candidate, scale, h, stream)
            what = candidate.describe(scale)
            if status != 0:
                failures.append((status, f"{what} -> {status_name(status)}"))
                continue
            verified = choice is not None and choice.path == "cublaslt" and choice.verified and \
                (choice.index, choice.scale) == (i, scale)
            if backend == "auto" and not verified and not _capturing(device):
                reference = gather()
                if not torch.equal(result, reference):
                    bad = int((result != reference).sum())
                    failures.append((0, f"{what} was accepted but differs from the index formulas in {bad} of "
                                        f"{reference.numel()} elements ({shape})"))
                    continue
                verified = True
            with _lock:
                _choices[key] = _Choice("cublaslt", i, scale, what, None, verified, tuple(f for _, f in failures))
            _count(key, "cublaslt")
            return result

    refused = "; ".join(f for _, f in failures)
    statuses = [st for st, _ in failures if st != 0]
    if backend == "cublaslt":
        raise CublasLtError(statuses[0] if statuses else None, "cublasLtMatrixTransform",
                            f"{kind} on cuda:{index} ({shape}); every description was refused: {refused}")
    reason = f"cuBLASLt refused or mismatched every description for {kind} ({shape}): {refused}"
    mismatch = any(st == 0 for st, _ in failures)
    with _lock:
        current = _choices.get(key)
        # keep a description that works for other shapes, unless cuBLASLt was caught computing something else
        if current is None or current.path != "cublaslt" or mismatch:
            _choices[key] = _Choice("gather", reason=reason, rejected=tuple(f for _, f in failures))
        else:  # only this shape is refused: remember that (bounded), keep cuBLASLt for the others
            _refused_shapes[(key, shape)] = None
            while len(_refused_shapes) > _REFUSED_SHAPES_CAPACITY:
                _refused_shapes.pop(next(iter(_refused_shapes)))
    _warn_once(key, f"cublasLtMatrixTransform {kind} on cuda:{index}: {reason}. Using the device-side gather "
                    f"through the verified index formulas instead (exact; see "
                    f"cutlass_gemm.cublaslt.transforms.transform_backend).")
    _count(key, "gather")
    return gather()


def transform_backend(order, direction: str = "to", device=None,
                      dtype: torch.dtype = torch.int8) -> Optional[TransformBackend]:
    """The path transforms of this (order, direction, device, dtype) take: a TransformBackend, or None if no
    such transform ran yet. direction: "to" (row-major -> order), "from" (order -> row-major), "from_col"
    (order -> column-major)."""
    if direction not in DIRECTIONS:
        raise InvalidArgumentError("direction", f"expected one of {DIRECTIONS}, got {direction!r}")
    o = Order.parse(order)
    dev = torch.device("cuda") if device is None else device_arg(device)
    key = _key(_device_index(dev), direction, o, dtype)
    return _snapshot(key)


def _snapshot(key: tuple) -> Optional[TransformBackend]:
    with _lock:
        choice = _choices.get(key)
        counts = list(_counts.get(key, [0, 0]))
        last = _last.get(key)
    if choice is None and last is None:
        return None
    if choice is None:  # only forced-gather calls so far
        choice = _Choice("gather", reason="backend='gather' requested")
    return TransformBackend(
        path=choice.path, index=choice.index, scale=None if choice.scale is None else choice.scale.name,
        description=choice.description, reason=choice.reason, verified=choice.verified, rejected=choice.rejected,
        cublaslt_calls=counts[0], gather_calls=counts[1], last_path=last,
    )


def transform_backends() -> Dict[tuple, TransformBackend]:
    """Every (device index, "direction:ORDER:dtype") seen so far -> TransformBackend."""
    with _lock:
        keys = set(_choices) | set(_last)
    return {key: _snapshot(key) for key in sorted(keys, key=str)}


def chosen_strategy(device, dtype: torch.dtype, order, direction: str = "to") -> Optional[Tuple[int, str]]:
    """(candidate index, scale type name) of the cuBLASLt description in use for this (device, dtype, order,
    direction), or None if none ran yet or the gather fallback is in use (see ``transform_backend``)."""
    found = _choices.get(_key(_device_index(device_arg(device)), direction, Order.parse(order), dtype))
    if found is None or found.path != "cublaslt":
        return None
    return found.index, found.scale.name


def _imma(order) -> Order:
    o = Order.parse(order)
    if o not in layouts.IMMA_ORDERS:
        raise InvalidArgumentError("order", f"expected one of {[x.name for x in layouts.IMMA_ORDERS]}, got {o.name}")
    return o


def _backend(backend) -> str:
    if backend not in BACKENDS:
        raise InvalidArgumentError("backend", f"expected one of {BACKENDS}, got {backend!r}")
    return backend


def _dims(rows, cols) -> Tuple[int, int]:
    for name, v in (("rows", rows), ("cols", cols)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InvalidArgumentError(name, f"expected a positive int, got {v!r}")
    return rows, cols


def transform(x: torch.Tensor, order, *, backend: str = "auto") -> torch.Tensor:
    """Row-major (R, C) int8/int32 CUDA tensor -> 1-D buffer in ``order`` (zero padding), same device/dtype.

    Runs on ``torch.cuda.current_stream(x.device)``. backend: "auto" (cuBLASLt, else the gather fallback),
    "cublaslt" (CublasLtError if refused) or "gather"."""
    o = _imma(order)
    backend = _backend(backend)
    cuda_tensor(x, "x", TRANSFORM_DTYPES, ndim=2)
    rows, cols = (int(s) for s in x.shape)
    dtype = x.dtype
    size = layouts.buffer_size(rows, cols, o)
    index = _device_index(x.device)
    dst = LayoutSpec(dtype, rows, cols, layouts.leading_dim(rows, o), o)
    candidates = (
        _Candidate(LayoutSpec(dtype, rows, cols, cols, Order.ROW), dst, _N),
        _Candidate(LayoutSpec(dtype, cols, rows, cols, Order.COL), dst, _T),
        _Candidate(LayoutSpec(dtype, rows, cols, rows, Order.COL), dst, _N, staged=True),
        _Candidate(LayoutSpec(dtype, cols, rows, rows, Order.ROW), dst, _T, staged=True),
    )
    col_major: List[torch.Tensor] = []

    def execute(c: _Candidate, scale: CudaDataType, h: int, stream: int):
        if c.staged and not col_major:
            col_major.append(x.t().contiguous())  # (C, R) row-major = column-major R x C, ld = R
        src = col_major[0] if c.staged else x
        out = torch.zeros(size, dtype=dtype, device=x.device)
        status = _attempt(index, dtype, c, scale, src.data_ptr(), out.data_ptr(), stream, h)
        return status, (out if status == 0 else None)

    return _run("to", o, dtype, x.device, f"{rows}x{cols}", candidates, execute,
                lambda: _gather.scatter(x, o, size), backend)


def _check_buffer(buf: torch.Tensor, o: Order, rows: int, cols: int) -> None:
    cuda_tensor(buf, "buf", TRANSFORM_DTYPES)
    need = layouts.buffer_size(rows, cols, o)
    if buf.numel() < need:
        raise InvalidArgumentError(
            "buf", f"{buf.numel()} elements, but a {rows}x{cols} {o.name} buffer needs {need}"
        )


def _untransform(direction: str, buf: torch.Tensor, order, rows, cols, backend) -> torch.Tensor:
    o = _imma(order)
    backend = _backend(backend)
    rows, cols = _dims(rows, cols)
    _check_buffer(buf, o, rows, cols)
    dtype = buf.dtype
    index = _device_index(buf.device)
    src = LayoutSpec(dtype, rows, cols, layouts.leading_dim(rows, o), o)
    row_major = (  # result: row-major (R, C)
        _Candidate(src, LayoutSpec(dtype, rows, cols, cols, Order.ROW), _N),
        # op(A) = A^T (C x R) stored column-major with ld = C: the same bytes as row-major (R, C).
        _Candidate(src, LayoutSpec(dtype, cols, rows, cols, Order.COL), _T),
        # column-major R x C (ld = R) into a (C, R) temporary, transposed by torch afterwards
        _Candidate(src, LayoutSpec(dtype, rows, cols, rows, Order.COL), _N, staged=True),
        _Candidate(src, LayoutSpec(dtype, cols, rows, rows, Order.ROW), _T, staged=True),
    )
    col_major = (  # result: column-major R x C, i.e. row-major (C, R)
        _Candidate(src, LayoutSpec(dtype, rows, cols, rows, Order.COL), _N),
        _Candidate(src, LayoutSpec(dtype, cols, rows, rows, Order.ROW), _T),
        _Candidate(src, LayoutSpec(dtype, rows, cols, cols, Order.ROW), _N, staged=True),
        _Candidate(src, LayoutSpec(dtype, cols, rows, cols, Order.COL), _T, staged=True),
    )
    final = (rows, cols) if direction == "from" else (cols, rows)

    def execute(c: _Candidate, scale: CudaDataType, h: int, stream: int):
        shape = final[::-1] if c.staged else final
        out = torch.empty(shape, dtype=dtype, device=buf.device)
        status = _attempt(index, dtype, c, scale, buf.data_ptr(), out.data_ptr(), stream, h)
        if status != 0:
            return status, None
        return status, (out.t().contiguous() if c.staged else out)

    if direction == "from":
        candidates, gather = row_major, (lambda: _gather.gather(buf, o, rows, cols))
    else:
        candidates, gather = col_major, (lambda: _gather.gather_col_major(buf, o, rows, cols))
    return _run(direction, o, dtype, buf.device, f"{rows}x{cols}", candidates, execute, gather, backend)


def untransform(buf: torch.Tensor, order, rows: int, cols: int, *, backend: str = "auto") -> torch.Tensor:
    """1-D buffer holding an R x C matrix in ``order`` -> row-major (R, C) tensor (same device/dtype).
    backend: as for :func:`transform`."""
    return _untransform("from", buf, order, rows, cols, backend)


def untransform_to_col_major(buf: torch.Tensor, order, rows: int, cols: int, *,
                             backend: str = "auto") -> torch.Tensor:
    """1-D buffer holding an R x C matrix in ``order`` -> the matrix in column-major order, returned as the
    row-major (C, R) torch tensor with the same bytes (i.e. the transpose, materialised for free).
    backend: as for :func:`transform`."""
    return _untransform("from_col", buf, order, rows, cols, backend)
