"""Activation-quantization ops (torch.library, namespace `cutlass_gemm`), feeding the GEMM ops directly.

    quantize_per_token(x, dtype=int8, *, scale_ub=None, pad_rows=0) -> (q, scale (..., 1))   dynamic, symmetric
    quantize_per_token_asym(x, *, pad_rows=0) -> (q, scale (..., 1), azp (..., 1) int32)     dynamic, int8
    quantize_per_tensor(x, dtype=int8, *, pad_rows=0) -> (q, scale 0-dim)                    dynamic, device-side max
    quantize_static(x, scale, dtype=int8, azp=None, *, pad_rows=0) -> (q, row_scale (..., 1))  given per-tensor scale
    quantize_per_group(x, group_size, dtype=int8, *, column_major_scale=False, pad_rows=0)
        -> (q, scale (..., K // group_size))                                              group 64 or 128 along K
    rms_norm_quantize(x, weight, eps=1e-6, dtype=int8, residual=None)
        -> (q, scale (..., 1), residual_out or None)                                      fused RMSNorm + per-token

`x` is (..., K) float32/float16/bfloat16 with a unit last stride (any leading dims and strides that
flatten to rows); `q` has x's shape, int8 or float8_e4m3fn. CUDA tensors run the kernels of
runtime/csrc/quant_*.cuh on the current stream with no host synchronisation (so they work under
torch.compile(fullgraph=True) and in CUDA graphs); CPU tensors run the float reference of
`cutlass_gemm.quant`, which the kernels match bit for bit (RMSNorm: to rounding of its sum of squares).
A row (tensor, group) holding a NaN or an infinity gets scale NaN and q = 0; static quantization
reports such rows through `row_scale`, which is the static scale elsewhere.

`pad_rows` (the row-wise and per-group quantizers): with pad_rows > 0 the outputs are 2-D, max(rows, pad_rows) rows
(rows = x's leading dims flattened), the rows past x's zero (q 0, scale 0, azp 0; a column-major group scale is
then the (rows, K // group) view of a (K // group, max(rows, pad_rows)) tensor). A W8A8 layer quantizes into the
rows its GEMM runs on (kernels/heuristics.py padded_rows: whole M tiles, faster on SM90) and keeps the first
rows of the output (ops/linear.py).
"""
from __future__ import annotations

from typing import Optional, Tuple

import torch

from .. import quant as _ref
from ..errors import InvalidArgumentError, warn_user
from ..runtime import extension
from .gemm import _eager_direct  # eager plain tensors skip the dispatcher's 5-10 us (gemm's rule)
from ._registry import define_op

_FLOATS = (torch.float32, torch.float16, torch.bfloat16)
_QTYPES = (torch.int8, torch.float8_e4m3fn)
GROUP_SIZES = (64, 128)
# cg_quant::RowMode in quant_common.cuh
MODE_DYNAMIC, MODE_ASYM, MODE_STATIC, MODE_PER_TENSOR, MODE_RMS = 0, 1, 2, 3, 4

Tensor = torch.Tensor


# ------------------------------------------------------------------------------------ validation
def _check_x(x, name: str = "x") -> None:
    if not isinstance(x, torch.Tensor):
        raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in _FLOATS:
        raise InvalidArgumentError(name, f"dtype must be float32, float16 or bfloat16, got {x.dtype}")
    if x.dim() < 1 or x.shape[-1] == 0:
        raise InvalidArgumentError(name, f"must have a non-empty last dimension, got shape {tuple(x.shape)}")
    if x.shape[-1] > 1 and x.stride(-1) != 1:
        raise InvalidArgumentError(name, f"last dimension must be contiguous (stride 1), got strides {x.stride()}")


def _check_qtype(dtype) -> None:
    if dtype not in _QTYPES:
        raise InvalidArgumentError("dtype", f"must be torch.int8 or torch.float8_e4m3fn, got {dtype!r}")


def _check_pad_rows(pad_rows) -> None:
    if isinstance(pad_rows, bool) or not isinstance(pad_rows, (int, torch.SymInt)) or pad_rows < 0:
        raise InvalidArgumentError("pad_rows", f"must be an int >= 0, got {pad_rows!r}")


def _check_scalar(t, name: str, dtype, device) -> None:
    if not isinstance(t, torch.Tensor) or t.dtype != dtype or t.numel() != 1:
        got = f"{t.dtype} {tuple(t.shape)}" if isinstance(t, torch.Tensor) else type(t).__name__
        raise InvalidArgumentError(name, f"must be a one-element {dtype} tensor, got {got}")
    if t.device != device:
        raise InvalidArgumentError(name, f"must be on {device} like x, got {t.device}")


def _rows(x: Tensor) -> Tensor:
    """(rows, K) view of x (a copy only where the leading dims do not flatten)."""
    return x.reshape(-1, x.shape[-1])


def _cpu_rows(x2: Tensor) -> Tensor:
    """The reference quantizers take no empty tensor: give them one zero row (its outputs, sliced off by
    the callers, are those of an all-zero row; a per-tensor scale of nothing is 1, as the kernels say)."""
    return x2 if x2.shape[0] else x2.new_zeros((1, x2.shape[1]))


def _lead(x: Tensor, last: int):
    return tuple(x.shape[:-1]) + (last,)


def _pad_ref(t: Tensor, rows: int) -> Tensor:
    """The reference path's padding: zero rows appended up to `rows` (CPU tensors)."""
    return t if t.shape[0] >= rows else torch.cat([t, t.new_zeros((rows - t.shape[0],) + tuple(t.shape[1:]))])


def _shaped(x: Tensor, pad_rows: int, q: Tensor, *per_row: Tensor):
    """x-shaped outputs, or (with pad_rows) the 2-D padded ones as they are."""
    if pad_rows:
        return (q,) + per_row
    return (q.reshape(x.shape),) + tuple(t.reshape(_lead(x, 1)) for t in per_row)


# ------------------------------------------------------------------------------------ implementations
def _ext():
    ext = extension.load()
    if ext is None:
        warn_user("cutlass_gemm: quantization kernels unavailable; using the torch reference (slow, syncs)")
    return ext


def _per_token_impl(x, dtype, scale_ub=None, pad_rows=0):
    x2 = _rows(x)
    ext = _ext() if x.is_cuda else None
    if ext is not None:
        q, s, _, _ = ext.quant_rows(x2, MODE_DYNAMIC, dtype, None, None, scale_ub, None, None, 0.0, pad_rows)
    else:
        qa = _ref.quantize_activation(_cpu_rows(x2), dtype=dtype, granularity="per_token", scale_ub=scale_ub)
        q, s = _pad_ref(qa.a[:x2.shape[0]], pad_rows), _pad_ref(qa.scale_a[:x2.shape[0]], pad_rows)
    return _shaped(x, pad_rows, q, s)


def _per_token_asym_impl(x, pad_rows=0):
    x2 = _rows(x)
    ext = _ext() if x.is_cuda else None
    if ext is not None:
        q, s, z, _ = ext.quant_rows(x2, MODE_ASYM, torch.int8, None, None, None, None, None, 0.0, pad_rows)
    else:
        qa = _ref.quantize_activation(_cpu_rows(x2), dtype=torch.int8, granularity="per_token", symmetric=False)
        q, s, z = (_pad_ref(t[:x2.shape[0]], pad_rows) for t in (qa.a, qa.scale_a, qa.azp))
    return _shaped(x, pad_rows, q, s, z)


def _per_tensor_impl(x, dtype, pad_rows=0):
    x2 = _rows(x)
    ext = _ext() if x.is_cuda else None
    if ext is not None:
        q, s, _, _ = ext.quant_rows(x2, MODE_PER_TENSOR, dtype, None, None, None, None, None, 0.0, pad_rows)
    else:
        qa = _ref.quantize_activation(_cpu_rows(x2), dtype=dtype, granularity="per_tensor")
        q, s = _pad_ref(qa.a[:x2.shape[0]], pad_rows), qa.scale_a
    return (q if pad_rows else q.reshape(x.shape)), s.reshape(())


def _static_impl(x, scale, dtype, azp=None, pad_rows=0):
    x2 = _rows(x)
    ext = _ext() if x.is_cuda else None
    if ext is not None:
        q, s, _, _ = ext.quant_rows(x2, MODE_STATIC, dtype, scale.reshape(1).to(torch.float32),
                                    None if azp is None else azp.reshape(1).to(torch.int32), None, None, None, 0.0,
                                    pad_rows)
    else:
        xr = _cpu_rows(x2)
        qa = _ref.quantize_static(xr, scale.reshape(()), None if azp is None else azp.reshape(()), dtype=dtype)
        s = _ref.static_row_scale(xr, qa.scale_a)[:x2.shape[0]]
        q, s = _pad_ref(qa.a[:x2.shape[0]], pad_rows), _pad_ref(s, pad_rows)
    return _shaped(x, pad_rows, q, s)


def _per_group_impl(x, group_size, dtype, column_major_scale=False, pad_rows=0):
    x2 = _rows(x)
    ext = _ext() if x.is_cuda else None
    if ext is not None:
        q, s = ext.quant_groups(x2, group_size, dtype, bool(column_major_scale), pad_rows)
    else:
        bq = _ref.quantize_per_block(_cpu_rows(x2), group_size, dtype=dtype)
        q, s = _pad_ref(bq.q[:x2.shape[0]], pad_rows), _pad_ref(bq.scale[:x2.shape[0]], pad_rows)
        if column_major_scale:
            s = s.t().contiguous().t()
    if column_major_scale or pad_rows:  # 2-D outputs (column-major: 2-D x only, checked), returned as they are
        return (q if pad_rows else q.reshape(x.shape)), s
    return q.reshape(x.shape), s.reshape(_lead(x, x.shape[-1] // group_size))


def _rms_reference(x2, weight, eps, residual):
    """float32 RMSNorm as Hugging Face Llama computes it: h = x (+ residual) rounded to x's dtype,
    y = weight * round(h * rsqrt(mean(h^2) + eps))."""
    h = x2 if residual is None else (x2.to(torch.float32) + residual.to(torch.float32)).to(x2.dtype)
    h32 = h.to(torch.float32)
    r = torch.rsqrt(h32.pow(2).mean(dim=1, keepdim=True) + eps)
    y = (weight.to(torch.float32) * (h32 * r).to(x2.dtype).to(torch.float32)).to(x2.dtype)
    return y, (None if residual is None else h)


def _rms_impl(x, weight, eps, dtype, residual=None):
    x2 = _rows(x)
    r2 = None if residual is None else _rows(residual)
    ext = _ext() if x.is_cuda else None
    if ext is not None:
        q, s, _, res_out = ext.quant_rows(x2, MODE_RMS, dtype, None, None, None, r2, weight.contiguous(), float(eps))
    else:
        y, res_out = _rms_reference(x2, weight, eps, r2)
        qa = _ref.quantize_activation(_cpu_rows(y), dtype=dtype, granularity="per_token")
        q, s = qa.a[:y.shape[0]], qa.scale_a[:y.shape[0]]
    q, s = q.reshape(x.shape), s.reshape(_lead(x, 1))
    return q, s, (None if res_out is None else res_out.reshape(x.shape))


# ------------------------------------------------------------------------------------ registration
for _schema, _fn in (
        ("quantize_per_token(Tensor x, ScalarType dtype, Tensor? scale_ub=None, SymInt pad_rows=0) "
         "-> (Tensor, Tensor)", _per_token_impl),
        ("quantize_per_token_asym(Tensor x, SymInt pad_rows=0) -> (Tensor, Tensor, Tensor)", _per_token_asym_impl),
        ("quantize_per_tensor(Tensor x, ScalarType dtype, SymInt pad_rows=0) -> (Tensor, Tensor)", _per_tensor_impl),
        ("quantize_static(Tensor x, Tensor scale, ScalarType dtype, Tensor? azp=None, SymInt pad_rows=0) "
         "-> (Tensor, Tensor)", _static_impl),
        ("quantize_per_group(Tensor x, int group_size, ScalarType dtype, bool column_major_scale=False, "
         "SymInt pad_rows=0) -> (Tensor, Tensor)", _per_group_impl),
        ("rms_norm_quantize(Tensor x, Tensor weight, float eps, ScalarType dtype) -> (Tensor, Tensor)",
         lambda x, w, eps, dtype: _rms_impl(x, w, eps, dtype)[:2]),
        ("add_rms_norm_quantize(Tensor x, Tensor residual, Tensor weight, float eps, ScalarType dtype)"
         " -> (Tensor, Tensor, Tensor)", lambda x, r, w, eps, dtype: _rms_impl(x, w, eps, dtype, r))):
    define_op(_schema, _fn)


def _fake_q(x, dtype, pad_rows=0):
    if pad_rows:
        return x.new_empty((_fake_rows(x, pad_rows), x.shape[-1]), dtype=dtype)
    return x.new_empty(x.shape, dtype=dtype)


def _fake_rows(x, pad_rows):
    rows = 1
    for d in x.shape[:-1]:
        rows = rows * d
    return torch.sym_max(rows, pad_rows)


def _fake_scale(x, last, pad_rows=0, dtype=torch.float32):
    if pad_rows:
        return x.new_empty((_fake_rows(x, pad_rows), last), dtype=dtype)
    return x.new_empty(_lead(x, last), dtype=dtype)


@torch.library.register_fake("cutlass_gemm::quantize_per_token")
def _(x, dtype, scale_ub=None, pad_rows=0):
    return _fake_q(x, dtype, pad_rows), _fake_scale(x, 1, pad_rows)


@torch.library.register_fake("cutlass_gemm::quantize_per_token_asym")
def _(x, pad_rows=0):
    return _fake_q(x, torch.int8, pad_rows), _fake_scale(x, 1, pad_rows), _fake_scale(x, 1, pad_rows, torch.int32)


@torch.library.register_fake("cutlass_gemm::quantize_per_tensor")
def _(x, dtype, pad_rows=0):
    return _fake_q(x, dtype, pad_rows), x.new_empty((), dtype=torch.float32)


@torch.library.register_fake("cutlass_gemm::quantize_static")
def _(x, scale, dtype, azp=None, pad_rows=0):
    return _fake_q(x, dtype, pad_rows), _fake_scale(x, 1, pad_rows)


@torch.library.register_fake("cutlass_gemm::quantize_per_group")
def _(x, group_size, dtype, column_major_scale=False, pad_rows=0):
    groups = x.shape[-1] // group_size
    if column_major_scale:
        rows = _fake_rows(x, pad_rows) if pad_rows else x.shape[0]
        return _fake_q(x, dtype, pad_rows), x.new_empty((groups, rows), dtype=torch.float32).t()
    return _fake_q(x, dtype, pad_rows), _fake_scale(x, groups, pad_rows)


@torch.library.register_fake("cutlass_gemm::rms_norm_quantize")
def _(x, weight, eps, dtype):
    return _fake_q(x, dtype), _fake_scale(x, 1)


@torch.library.register_fake("cutlass_gemm::add_rms_norm_quantize")
def _(x, residual, weight, eps, dtype):
    return _fake_q(x, dtype), _fake_scale(x, 1), torch.empty_like(x)


# ------------------------------------------------------------------------------------ public API
_ops = torch.ops.cutlass_gemm


def quantize_per_token(x: Tensor, dtype: torch.dtype = torch.int8, *,
                       scale_ub: Optional[Tensor] = None, pad_rows: int = 0) -> Tuple[Tensor, Tensor]:
    """Dynamic symmetric per-token quantization: (q, scale (..., 1) float32), scale = absmax / qmax
    (127 int8, 448 fp8), absmax clamped to `scale_ub` (a one-element float32 tensor) when given.
    `pad_rows`: 2-D outputs with zero rows up to pad_rows (module docstring)."""
    _check_x(x)
    _check_qtype(dtype)
    _check_pad_rows(pad_rows)
    if scale_ub is not None:
        _check_scalar(scale_ub, "scale_ub", torch.float32, x.device)
    return _ops.quantize_per_token(x, dtype, scale_ub, pad_rows)


def quantize_per_token_asym(x: Tensor, *, pad_rows: int = 0) -> Tuple[Tensor, Tensor, Tensor]:
    """Dynamic asymmetric int8 per-token quantization: (q, scale (..., 1), azp (..., 1) int32) with
    x ~= scale * (q - azp); each row's min maps to -128 and max to 127 (range widened to hold 0).
    `pad_rows`: 2-D outputs with zero rows up to pad_rows (module docstring)."""
    _check_x(x)
    _check_pad_rows(pad_rows)
    return _ops.quantize_per_token_asym(x, pad_rows)


def quantize_per_tensor(x: Tensor, dtype: torch.dtype = torch.int8, *, pad_rows: int = 0) -> Tuple[Tensor, Tensor]:
    """Dynamic per-tensor quantization: (q, scale 0-dim). The absmax is reduced on the device.
    `pad_rows`: a 2-D q with zero rows up to pad_rows (module docstring)."""
    _check_x(x)
    _check_qtype(dtype)
    _check_pad_rows(pad_rows)
    if _eager_direct(x):  # eager plain tensors: the implementation itself, no dispatcher round trip
        return _per_tensor_impl(x, dtype, pad_rows)
    return _ops.quantize_per_tensor(x, dtype, pad_rows)


def quantize_static(x: Tensor, scale: Tensor, dtype: torch.dtype = torch.int8,
                    azp: Optional[Tensor] = None, *, pad_rows: int = 0) -> Tuple[Tensor, Tensor]:
    """Static per-tensor quantization with a given scale (and int8 zero point): (q, row_scale (..., 1)),
    row_scale = scale for every row without NaN/Inf, NaN for the others (feed it to the GEMM as scale_a).
    `pad_rows`: 2-D outputs with zero rows up to pad_rows (module docstring)."""
    _check_x(x)
    _check_qtype(dtype)
    _check_pad_rows(pad_rows)
    _check_scalar(scale, "scale", torch.float32, x.device)
    if azp is not None:
        if dtype != torch.int8:
            raise InvalidArgumentError("azp", "zero points are int8 only")
        _check_scalar(azp, "azp", torch.int32, x.device)
    if _eager_direct(x):
        return _static_impl(x, scale, dtype, azp, pad_rows)
    return _ops.quantize_static(x, scale, dtype, azp, pad_rows)


def quantize_per_group(x: Tensor, group_size: int, dtype: torch.dtype = torch.int8, *,
                       column_major_scale: bool = False, pad_rows: int = 0) -> Tuple[Tensor, Tensor]:
    """Dynamic symmetric quantization per group of `group_size` (64 or 128) consecutive K elements:
    (q, scale (..., K // group_size)), the layout of `cutlass_gemm.quant.quantize_per_block`.

    `column_major_scale=True` (x 2-D (M, K)) returns the same scale values as the column-major view (strides
    (1, M)) of a (K // group_size, M) tensor: the layout the blockwise GEMM loads with TMA, faster at large M
    (tools/results/h100-2026-11-23/session7/call1/blockwise.md). `pad_rows`: 2-D outputs with zero rows up to
    pad_rows (module docstring)."""
    _check_x(x)
    _check_qtype(dtype)
    if group_size not in GROUP_SIZES:
        raise InvalidArgumentError("group_size", f"must be one of {GROUP_SIZES}, got {group_size!r}")
    if x.shape[-1] % group_size:
        raise InvalidArgumentError("x", f"K = {x.shape[-1]} must be a multiple of group_size = {group_size}")
    if not isinstance(column_major_scale, bool):
        raise InvalidArgumentError("column_major_scale", f"must be a bool, got {type(column_major_scale).__name__}")
    if column_major_scale and x.dim() != 2:
        raise InvalidArgumentError("column_major_scale", f"needs a 2-D x (M, K), got shape {tuple(x.shape)}")
    _check_pad_rows(pad_rows)
    if column_major_scale or pad_rows:
        return _ops.quantize_per_group(x, group_size, dtype, column_major_scale, pad_rows)
    return _ops.quantize_per_group(x, group_size, dtype)


def rms_norm_quantize(x: Tensor, weight: Tensor, eps: float = 1e-6, dtype: torch.dtype = torch.int8,
                      residual: Optional[Tensor] = None) -> Tuple[Tensor, Tensor, Optional[Tensor]]:
    """RMSNorm (Llama's: h = x (+ residual), y = weight * (h * rsqrt(mean(h^2) + eps)) in x's dtype)
    fused with dynamic symmetric per-token quantization of y: (q, scale (..., 1), h or None). With
    `residual`, h = x + residual is also returned (the next layer's residual)."""
    _check_x(x)
    _check_qtype(dtype)
    if not isinstance(weight, torch.Tensor) or weight.dtype != x.dtype or tuple(weight.shape) != (x.shape[-1],):
        raise InvalidArgumentError("weight", f"must be a ({x.shape[-1]},) {x.dtype} tensor, got "
                                             f"{tuple(weight.shape) if isinstance(weight, torch.Tensor) else weight}")
    if weight.device != x.device:
        raise InvalidArgumentError("weight", f"must be on {x.device} like x, got {weight.device}")
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not eps >= 0:
        raise InvalidArgumentError("eps", f"must be a float >= 0, got {eps!r}")
    if residual is None:
        q, s = _ops.rms_norm_quantize(x, weight, float(eps), dtype)
        return q, s, None
    _check_x(residual, "residual")
    if residual.shape != x.shape or residual.dtype != x.dtype or residual.device != x.device:
        raise InvalidArgumentError("residual", f"must match x ({x.dtype} {tuple(x.shape)} on {x.device}), got "
                                               f"{residual.dtype} {tuple(residual.shape)} on {residual.device}")
    return _ops.add_rms_norm_quantize(x, residual, weight, float(eps), dtype)
