"""int8 GEMM through cuBLASLt: C = A @ B^T for A (M, K) int8 and B (N, K) int8, both row-major -- what
``torch._int_mm(a, b.t())`` computes -- with int32, int8 or float32 output and an optional float32 alpha
(scalar, or a per-output-channel vector of length N).

Two pipelines (``order``):

* ``"tn"`` -- regular column-major operands, "TN" (the one cuBLASLt documents for every IMMA-capable GPU,
  and the only one on sm89/sm90). cuBLASLt is column-major; a row-major (R, C) tensor is, byte for byte, a
  column-major C x R matrix with leading dimension C. So, with cuBLAS's D(m x n) = op(A') op(B'):

    A' = b_nk's bytes = column-major K x N (ld K), TRANSA = T  ->  op(A') = B      (N x K)
    B' = a's bytes    = column-major K x M (ld K), TRANSB = N  ->  op(B') = A^T    (K x M)
    D  = B A^T = (A B^T)^T : column-major N x M (ld N) = row-major (M, N) C, byte for byte.

  cuBLAS dims are therefore m = N, n = M, k = K. Documented IMMA requirements for regular ordering
  (cuBLASLt docs, cublasLtMatmul): "m and k multiples of 4", leading dimensions of A, B, C multiples of 4,
  pointers 4-byte aligned (16 preferred), TN only, pointer mode HOST, DEVICE or
  ALPHA_DEVICE_VECTOR_BETA_HOST. Hence here: N % 4 == 0, K % 4 == 0, any M >= 1, data pointers 4-byte aligned;
  other shapes raise InvalidArgumentError before any call. The alpha vector has "length equal to the number
  of rows of D" = N: one scale per output channel.

* IMMA orders (``Order.COL4_4R2_8C`` on sm75/sm80, ``Order.COL32_2R_4R4`` on sm80; documented not to run
  on Hopper): cuBLASLt's "NT" with COL32 A, COL32 C/D and the tiled order for B. To keep the alpha vector
  per output channel, the product is computed transposed, D' = B A^T (N x M): A' = B (N x K, COL32),
  B' = A (M x K, tiled order, TRANSB = T), D' in COL32 (N x M, alpha vector length N), and D' is
  untransformed straight into column-major N x M = row-major (M, N). Requesting these orders where cuBLASLt
  cannot run them raises UnsupportedOrderError (from the status cuBLASLt returns).

Fallbacks of the TN pipeline (explicit: a one-time CublasLtFallbackWarning, and ``matmul_backend`` reports the
path taken): if cuBLASLt refuses int8 / float32 output or the alpha vector (heuristic or launch status
NOT_SUPPORTED / ARCH_MISMATCH / INVALID_VALUE), the exact int32 product is computed with cuBLASLt and alpha and
the output conversion are applied in torch (what cuBLASLt's epilogue computes: float32 alpha * acc, int8
rounded to nearest and saturated); if the int32 product itself is refused for this M, it is retried once with
M zero-padded to a multiple of 32 (exact; sliced back). Refusals are remembered per configuration, so the
heuristic is not asked again. The IMMA pipeline has no fallback: it raises UnsupportedOrderError.

Data types (cuBLASLt docs, Table 1 / Table 2): int32 out = COMPUTE_32I + scale 32I (alpha must be None);
int8 out = COMPUTE_32I + scale 32F (saturating); float32 out = COMPUTE_32F + scale 32F (regular order only).
Descriptors and the heuristic's algorithm are cached per (device, pipeline, shape, out dtype, alpha kind,
operand alignment); the workspace (32 MiB) per (device, stream); work runs on torch's current stream.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import torch

from cutlass_gemm.errors import InvalidArgumentError, warn_user

from . import _matmul_plans, layouts
from ._context import handle, on_device
from ._descriptors import LayoutSpec
from ._matmul_plans import _REFUSALS, _build_plan, _get_plan, _launch
from ._matmul_args import (IMMA_B_ORDERS, OUT_DTYPES, TN, Alpha, _IMMA_OUT_DTYPES, _capability, _check_dim, _dtype_name,
                           _parse_alpha, _parse_order, _parse_out_dtype, select_order)
from ._validate import alignment, cuda_tensor, device_arg, same_device
from .enums import Operation, Order, PointerMode
from .errors import CublasLtError, CublasLtFallbackWarning
from .transforms import transform, untransform_to_col_major

__all__ = [
    "int8_matmul", "imma_matmul", "select_order", "matmul_backend", "MatmulBackend", "clear_plans", "OUT_DTYPES",
    "IMMA_B_ORDERS", "TN",
]

def int8_matmul(a: torch.Tensor, b_nk: torch.Tensor, alpha: Alpha = None, out_dtype: torch.dtype = torch.int32,
                *, order="auto") -> torch.Tensor:
    """C = alpha * (a @ b_nk.T) with a (M, K) int8 and b_nk (N, K) int8, both row-major CUDA tensors on one
    device; returns a new row-major (M, N) tensor of ``out_dtype`` (int32, int8 or float32).

    alpha: None (1), a real number, or a float32 CUDA vector of length N (one scale per output column /
    weight row); not allowed with int32 output. int8 output saturates. ``order``: "auto" (select_order),
    "tn", Order.COL4_4R2_8C or Order.COL32_2R_4R4 (IMMA pipeline; UnsupportedOrderError where cuBLASLt
    cannot run it). Runs on torch.cuda.current_stream(a.device). For order "tn", N and K must be multiples
    of 4 (cuBLASLt's IMMA requirement); other shapes raise InvalidArgumentError. Where cuBLASLt refuses the
    TN request, the fallbacks of the module docstring run (CublasLtFallbackWarning once; ``matmul_backend``)."""
    cuda_tensor(a, "a", (torch.int8,), ndim=2)
    cuda_tensor(b_nk, "b_nk", (torch.int8,), ndim=2)
    same_device(b_nk, "b_nk", a)
    m, k = (int(s) for s in a.shape)
    n, k_b = (int(s) for s in b_nk.shape)
    if k_b != k:
        raise InvalidArgumentError("b_nk", f"shape {tuple(b_nk.shape)} does not match a {tuple(a.shape)}: "
                                           f"expected (N, {k})")
    for name, v in (("M", m), ("N", n), ("K", k)):
        _check_dim(v, name)
    out_dtype = _parse_out_dtype(out_dtype)
    device = a.device
    alpha_kind = _parse_alpha(alpha, out_dtype, n, device, "output column (N)")
    path = _parse_order(order, device, out_dtype)

    if path != TN:
        if out_dtype not in _IMMA_OUT_DTYPES:
            raise InvalidArgumentError("out_dtype", f"the IMMA orders offer int32 or int8 output only "
                                                    f"(cuBLASLt Table 2), got {_dtype_name(out_dtype)}; use order='tn'")
        w_t = transform(b_nk, Order.COL32)
        x_t = transform(a, path)
        d_t = imma_matmul(w_t, x_t, n, m, k, b_order=path, alpha=alpha, out_dtype=out_dtype)
        out = untransform_to_col_major(d_t, Order.COL32, n, m)  # column-major N x M == row-major (M, N)
        _record(_backend_key(device, path, out_dtype, alpha_kind), "cublaslt")
        return out

    if n % 4:
        raise InvalidArgumentError("b_nk", f"N = {n} must be a multiple of 4 (cuBLASLt IMMA: m and the leading "
                                           f"dimension of D are N here)")
    if k % 4:
        raise InvalidArgumentError("a", f"K = {k} must be a multiple of 4 (cuBLASLt IMMA: k and the leading "
                                        f"dimensions of A and B are K here)")
    for name, t in (("a", a), ("b_nk", b_nk)):
        if t.data_ptr() % 4:
            raise InvalidArgumentError(name, "data pointer is not 4-byte aligned (cuBLASLt IMMA requirement)")
    return _tn(a, b_nk, m, n, k, out_dtype, alpha, alpha_kind)


def _tn_once(a: torch.Tensor, b_nk: torch.Tensor, m: int, n: int, k: int, out_dtype: torch.dtype, alpha,
             alpha_kind: str) -> torch.Tensor:
    """One plain-TN cuBLASLt matmul exactly as asked; CublasLtError when cuBLASLt refuses it."""
    device = a.device
    out = torch.empty((m, n), dtype=out_dtype, device=device)
    aligns = (alignment(b_nk.data_ptr()), alignment(a.data_ptr()), alignment(out.data_ptr()))
    modes = ((PointerMode.ALPHA_DEVICE_VECTOR_BETA_HOST, PointerMode.ALPHA_DEVICE_VECTOR_BETA_ZERO)
             if alpha_kind == "vector" else (PointerMode.HOST,))
    with on_device(device):
        h = handle(device)
        key = (device.index, TN, m, n, k, out_dtype, alpha_kind == "vector", aligns)
        plan = _get_plan(key, lambda: _build_plan(
            device.index, h,
            LayoutSpec(torch.int8, k, n, k, Order.COL),  # A' = b_nk, op T
            LayoutSpec(torch.int8, k, m, k, Order.COL),  # B' = a, op N
            LayoutSpec(out_dtype, n, m, n, Order.COL),   # D  = C^T column-major = C row-major
            Operation.CUBLAS_OP_T, Operation.CUBLAS_OP_N, out_dtype, modes, aligns,
            f"int8 TN matmul M={m} N={n} K={k} -> {_dtype_name(out_dtype)}, alpha={alpha_kind}",
        ), imma=False)
        _launch(plan, device, h, b_nk.data_ptr(), a.data_ptr(), out.data_ptr(), alpha, alpha_kind, imma=False,
                key=key)
    return out


def _refusal(exc: CublasLtError) -> bool:
    return exc.status in _REFUSALS


def _tn_int32(a: torch.Tensor, b_nk: torch.Tensor, m: int, n: int, k: int
              ) -> Tuple[torch.Tensor, Optional[CublasLtError]]:
    """Exact int32 TN product; if cuBLASLt refuses the shape, retry once with M zero-padded to a multiple of 32
    (>= 32) and 256-byte aligned copies (zero rows add nothing; the result is sliced back).
    Returns (C, the refusal that made it pad, or None)."""
    try:
        return _tn_once(a, b_nk, m, n, k, torch.int32, None, "none"), None
    except CublasLtError as exc:
        if not _refusal(exc):
            raise
        first = exc
    m_p = max(32, (m + 31) // 32 * 32)
    a_p = torch.zeros((m_p, k), dtype=torch.int8, device=a.device)
    a_p[:m] = a
    b_p = b_nk if alignment(b_nk.data_ptr()) >= 256 else b_nk.clone()
    try:
        out = _tn_once(a_p, b_p, m_p, n, k, torch.int32, None, "none")
    except CublasLtError as exc:
        raise CublasLtError(first.status, first.function,
                            f"{first.detail}; retried with M padded to {m_p}: {exc}") from None
    return out[:m], first


def _torch_epilogue(acc: torch.Tensor, alpha, alpha_kind: str, out_dtype: torch.dtype) -> torch.Tensor:
    """What cuBLASLt's epilogue computes (float32 alpha * acc; int8 output rounded to nearest, saturated)."""
    y = acc.to(torch.float32)
    if alpha_kind == "vector":
        y = y * alpha[None, :]
    elif alpha_kind == "scalar":
        y = y * float(alpha)  # float32 op (the scalar is not promoted): float32 alpha * float32 acc
    if out_dtype == torch.int8:
        y = torch.round(y).clamp_(-128, 127).to(torch.int8)
    return y


def _tn(a: torch.Tensor, b_nk: torch.Tensor, m: int, n: int, k: int, out_dtype: torch.dtype, alpha,
        alpha_kind: str) -> torch.Tensor:
    """Plain TN with explicit, recorded fallbacks (see ``matmul_backend``)."""
    key = _backend_key(a.device, TN, out_dtype, alpha_kind)
    if out_dtype != torch.int32:
        try:
            out = _tn_once(a, b_nk, m, n, k, out_dtype, alpha, alpha_kind)
            _record(key, "cublaslt")
            return out
        except CublasLtError as exc:
            if not _refusal(exc):
                raise
            reason = str(exc)
        acc, padded = _tn_int32(a, b_nk, m, n, k)
        path = ("cublaslt" if padded is None else "cublaslt-padded-m") + "-int32+torch-epilogue"
        _record(key, path, reason, warn=(
            f"cuBLASLt refused the int8 TN matmul with {_dtype_name(out_dtype)} output and alpha={alpha_kind} "
            f"({reason}); computing the exact int32 product with cuBLASLt and applying alpha / the "
            f"{_dtype_name(out_dtype)} conversion in torch instead"))
        return _torch_epilogue(acc, alpha, alpha_kind, out_dtype)
    out, padded = _tn_int32(a, b_nk, m, n, k)
    if padded is not None:
        _record(key, "cublaslt-padded-m", str(padded), warn=(
            f"cuBLASLt refused the int8 TN matmul M={m} N={n} K={k}; ran it with M zero-padded to a multiple of 32"))
    else:
        _record(key, "cublaslt")
    return out


# ---- which path matmuls take ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class MatmulBackend:
    """The path int8_matmul took for a (device, pipeline, out dtype, alpha kind): ``last_path`` is one of
    "cublaslt" (as asked), "cublaslt-padded-m" (M zero-padded to a multiple of 32 after a refusal),
    "cublaslt-int32+torch-epilogue" / "cublaslt-padded-m-int32+torch-epilogue" (cuBLASLt refused this output
    type / alpha kind: exact int32 cuBLASLt product, alpha and conversion in torch); ``reason``: the latest
    refusal; ``calls``: path -> number of calls."""

    last_path: str
    reason: Optional[str]
    calls: Dict[str, int]


_backend_lock = threading.Lock()
_backends: Dict[tuple, dict] = {}
_warned: set = set()


def _backend_key(device: torch.device, pipeline, out_dtype: torch.dtype, alpha_kind: str) -> tuple:
    index = device.index if device.index is not None else torch.cuda.current_device()
    name = pipeline if isinstance(pipeline, str) else Order.parse(pipeline).name
    return index, name, _dtype_name(out_dtype), alpha_kind


def _record(key: tuple, path: str, reason: Optional[str] = None, warn: Optional[str] = None) -> None:
    with _backend_lock:
        entry = _backends.setdefault(key, {"last": path, "reason": None, "calls": {}})
        entry["last"] = path
        if reason is not None:
            entry["reason"] = reason
        entry["calls"][path] = entry["calls"].get(path, 0) + 1
        first = warn is not None and (key, path) not in _warned
        if first:
            _warned.add((key, path))
    if first:
        warn_user(f"cuBLASLt int8_matmul on cuda:{key[0]}: {warn} (see "
                  f"cutlass_gemm.cublaslt.matmul.matmul_backend)", CublasLtFallbackWarning)


def matmul_backend(out_dtype: torch.dtype = torch.int32, alpha: str = "none", device=None,
                   pipeline="tn") -> Optional[MatmulBackend]:
    """The path of the latest int8_matmul with this output dtype, alpha kind ("none", "scalar", "vector"),
    device (default: current) and pipeline ("tn" or an IMMA order); None if none ran yet."""
    out_dtype = _parse_out_dtype(out_dtype)
    if alpha not in ("none", "scalar", "vector"):
        raise InvalidArgumentError("alpha", f"expected 'none', 'scalar' or 'vector', got {alpha!r}")
    if not (isinstance(pipeline, str) and pipeline == TN):
        Order.parse(pipeline, "pipeline")
    dev = torch.device("cuda") if device is None else device_arg(device)
    with _backend_lock:
        entry = _backends.get(_backend_key(dev, pipeline, out_dtype, alpha))
        if entry is None:
            return None
        return MatmulBackend(entry["last"], entry["reason"], dict(entry["calls"]))


def imma_matmul(a_buf: torch.Tensor, b_buf: torch.Tensor, m: int, n: int, k: int, *, b_order,
                alpha: Alpha = None, out_dtype: torch.dtype = torch.int32) -> torch.Tensor:
    """cuBLASLt IMMA-order matmul on already transformed buffers, in cuBLASLt's own terms:
    D (m x n, COL32) = alpha * A (m x k, COL32) @ B^T, B (n x k) in ``b_order`` (COL4_4R2_8C or COL32_2R_4R4).

    Buffers are 1-D int8 CUDA tensors as made by ``transform``; returns a zero-initialised COL32 buffer of
    ``layouts.buffer_size(m, n, COL32)`` elements of out_dtype (int32, or int8 with scale type float32). A vector
    alpha has m entries (rows of D). Raises UnsupportedOrderError where cuBLASLt cannot run these orders
    (documented: not on sm90)."""
    o = Order.parse(b_order, "b_order")
    if o not in IMMA_B_ORDERS:
        raise InvalidArgumentError("b_order", f"expected one of {[x.name for x in IMMA_B_ORDERS]}, got {o.name}")
    for name, v in (("m", m), ("n", n), ("k", k)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise InvalidArgumentError(name, f"expected a positive int, got {v!r}")
        _check_dim(v, name)
    cuda_tensor(a_buf, "a_buf", (torch.int8,))
    cuda_tensor(b_buf, "b_buf", (torch.int8,))
    same_device(b_buf, "b_buf", a_buf)
    for name, buf, rows, order in (("a_buf", a_buf, m, Order.COL32), ("b_buf", b_buf, n, o)):
        need = layouts.buffer_size(rows, k, order)
        if buf.numel() < need:
            raise InvalidArgumentError(name, f"{buf.numel()} elements; a {rows}x{k} {order.name} buffer needs {need}")
    out_dtype = _parse_out_dtype(out_dtype)
    if out_dtype not in _IMMA_OUT_DTYPES:
        raise InvalidArgumentError("out_dtype", f"IMMA orders give int32 or int8 only, got {_dtype_name(out_dtype)}")
    device = a_buf.device
    alpha_kind = _parse_alpha(alpha, out_dtype, m, device, "row of D (m)")

    out = torch.zeros(layouts.buffer_size(m, n, Order.COL32), dtype=out_dtype, device=device)
    aligns = (alignment(a_buf.data_ptr()), alignment(b_buf.data_ptr()), alignment(out.data_ptr()))
    modes = ((PointerMode.ALPHA_DEVICE_VECTOR_BETA_ZERO, PointerMode.ALPHA_DEVICE_VECTOR_BETA_HOST)
             if alpha_kind == "vector" else (PointerMode.HOST,))
    with torch.cuda.device(device):
        h = handle(device)
        key = (device.index, o, m, n, k, out_dtype, alpha_kind == "vector", aligns)
        what = (f"int8 IMMA matmul (A COL32, B {o.name}, D COL32) m={m} n={n} k={k} -> {_dtype_name(out_dtype)}, "
                f"alpha={alpha_kind}, device sm{''.join(map(str, torch.cuda.get_device_capability(device)))}")
        plan = _get_plan(key, lambda: _build_plan(
            device.index, h,
            LayoutSpec(torch.int8, m, k, layouts.leading_dim(m, Order.COL32), Order.COL32),
            LayoutSpec(torch.int8, n, k, layouts.leading_dim(n, o), o),
            LayoutSpec(out_dtype, m, n, layouts.leading_dim(m, Order.COL32), Order.COL32),
            Operation.CUBLAS_OP_N, Operation.CUBLAS_OP_T, out_dtype, modes, aligns, what,
        ), imma=True)
        _launch(plan, device, h, a_buf.data_ptr(), b_buf.data_ptr(), out.data_ptr(), alpha, alpha_kind, imma=True,
                key=key)
    return out


def clear_plans() -> None:
    """Forget cached matmul plans (descriptors are destroyed once unreferenced), remembered refusals, the
    recorded backends and the fallback warnings already given."""
    _matmul_plans.clear()
    _capability.cache_clear()
    with _backend_lock:
        _backends.clear()
        _warned.clear()
