"""Argument checks of the scaled GEMM ops (`gemm.py`): every problem is named as an
`InvalidArgumentError` before any kernel runs, and `_fast_layout` decides whether a call may take the
C++ fast path as it stands. Split from gemm.py; gemm.py re-exports the public names."""
from __future__ import annotations

import math
from typing import Tuple

import torch

from ..errors import InvalidArgumentError

_OUT_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_IN_NAMES = {torch.int8: "int8"}
if hasattr(torch, "float8_e4m3fn"):
    _IN_NAMES[torch.float8_e4m3fn] = "e4m3"

# Kernels take 16-byte aligned rows: K (A and B rows) in 16 one-byte elements, N (D rows) in 8 halves.
K_ALIGN = 16
N_ALIGN = 8
#: The launchers take M, N, K as 32-bit ints (CUTLASS problem shapes) and leading dimensions in int32 range.
SIZE_LIMIT = 1 << 31
_LIMIT_TEXT = "M, N, K and the leading dimensions must be < 2^31 (the kernels index with 32-bit ints)"


# ---------------------------------------------------------------------------------------- validation
def _vector_kind(t, name: str, length: int, dtype, scalar_kind: str, vector_kind: str, vector_shapes):
    if not isinstance(t, torch.Tensor):
        raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != dtype:
        raise InvalidArgumentError(name, f"must be {dtype}, got {t.dtype}")
    if t.dim() <= 2 and math.prod(t.shape) == 1:  # prod, not numel(): works on symbolic shapes
        return scalar_kind
    if tuple(t.shape) not in vector_shapes:
        raise InvalidArgumentError(name, f"must have one element or shape {' or '.join(map(str, vector_shapes))} "
                                         f"(length {length}), got {tuple(t.shape)}")
    if not t.is_contiguous():
        raise InvalidArgumentError(name, "must be contiguous")
    return vector_kind


def _same_device(t, name: str, device) -> None:
    if t.device != device:
        raise InvalidArgumentError(name, f"must be on {device} like `a`, got {t.device}")


def _span(t):
    """(first byte, one past the last byte) a real tensor can touch; None for empty, meta or fake ones."""
    if t is None:
        return None
    try:
        if type(t) is not torch.Tensor and _is_traced(t):
            return None
        start = t.data_ptr()
        if start == 0 or t.device.type == "meta" or t.numel() == 0:
            return None
        extent = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))
    except Exception:  # FakeTensor / functional tensors under tracing have no data
        return None
    return start, start + extent * t.element_size()


def _is_traced(t) -> bool:
    from torch._subclasses.fake_tensor import is_fake
    from torch._subclasses.functional_tensor import FunctionalTensor
    return is_fake(t) or isinstance(t, FunctionalTensor)


def _overlap(out, inputs) -> str:
    """Name of the first input whose memory overlaps `out` ("" when none does)."""
    o = _span(out)
    if o is None:
        return ""
    for name, t in inputs:
        s = _span(t)
        if s is not None and s[0] < o[1] and o[0] < s[1]:
            return name
    return ""


def _check_size(name: str, what: str, value) -> None:
    if value >= SIZE_LIMIT:
        raise InvalidArgumentError(name, f"{what} = {value} is too large: {_LIMIT_TEXT}")


def validate(a, b, scale_a, scale_b, out_dtype, bias=None, azp_adj=None, azp=None, out=None,
             *, with_azp: bool = False) -> Tuple[int, int, int, str, str]:
    """Check every argument; returns (M, N, K, scale_a kind, scale_b kind)."""
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise InvalidArgumentError(name, f"must be 2-D, got {t.dim()}-D shape {tuple(t.shape)}")
    if a.dtype not in _IN_NAMES:
        raise InvalidArgumentError("a", f"dtype must be one of {list(_IN_NAMES)}, got {a.dtype}")
    if b.dtype != a.dtype:
        raise InvalidArgumentError("b", f"dtype must match a ({a.dtype}), got {b.dtype}")
    if with_azp and a.dtype != torch.int8:
        raise InvalidArgumentError("a", f"zero-point GEMMs take int8, got {a.dtype}")
    if out_dtype not in _OUT_NAMES:
        raise InvalidArgumentError("out_dtype", f"must be torch.bfloat16 or torch.float16, got {out_dtype}")
    M, K = a.shape
    if b.shape[0] != K:
        raise InvalidArgumentError("b", f"must be (K, N) with K = a.shape[1] = {K}, got {tuple(b.shape)}")
    N = b.shape[1]
    _check_size("a", "M", M)
    _check_size("a", "K", K)
    _check_size("b", "N", N)
    device = a.device
    _same_device(b, "b", device)
    # K == 0: nothing to multiply (torch.empty(M, 0) has strides (1, 1)); the result is the epilogue alone.
    if K > 0 and (a.stride(1) != 1 or (M > 1 and a.stride(0) < K)):
        raise InvalidArgumentError("a", f"must be row-major (stride (lda, 1)), got strides {a.stride()}")
    if K > 0 and (b.stride(0) != 1 or (N > 1 and b.stride(1) < K)):
        raise InvalidArgumentError("b", f"must be column-major, i.e. the .t() of a contiguous (N, K) "
                                        f"weight (strides (1, ldb)), got strides {b.stride()}")
    if K % K_ALIGN:
        raise InvalidArgumentError("a", f"K = {K} must be a multiple of {K_ALIGN} (16-byte rows for the tensor "
                                        f"cores); pad K with zeros in both a and b")
    if N % N_ALIGN:
        raise InvalidArgumentError("b", f"N = {N} must be a multiple of {N_ALIGN} (16-byte output rows); "
                                        f"pad the weight with zero rows")
    if K > 0 and M > 1:
        if a.stride(0) % K_ALIGN:
            raise InvalidArgumentError("a", f"leading dimension {a.stride(0)} must be a multiple of {K_ALIGN}")
        _check_size("a", "the leading dimension", a.stride(0))
    if K > 0 and N > 1:
        if b.stride(1) % K_ALIGN:
            raise InvalidArgumentError("b", f"leading dimension {b.stride(1)} must be a multiple of {K_ALIGN}")
        _check_size("b", "the leading dimension", b.stride(1))
    sa = _vector_kind(scale_a, "scale_a", M, torch.float32, "tensor", "token", [(M, 1), (M,)])
    sb = _vector_kind(scale_b, "scale_b", N, torch.float32, "tensor", "channel", [(1, N), (N,)])
    _same_device(scale_a, "scale_a", device)
    _same_device(scale_b, "scale_b", device)
    if bias is not None:
        if not isinstance(bias, torch.Tensor) or tuple(bias.shape) not in ((N,), (1, N)):
            raise InvalidArgumentError("bias", f"must have shape ({N},), got "
                                               f"{tuple(bias.shape) if isinstance(bias, torch.Tensor) else bias}")
        if bias.dtype != out_dtype:
            raise InvalidArgumentError("bias", f"dtype must be the output dtype {out_dtype}, got {bias.dtype}")
        if not bias.is_contiguous():
            raise InvalidArgumentError("bias", "must be contiguous")
        _same_device(bias, "bias", device)
    if with_azp:
        if not isinstance(azp_adj, torch.Tensor) or azp_adj.dtype != torch.int32 \
                or tuple(azp_adj.shape) not in ((N,), (1, N)) or not azp_adj.is_contiguous():
            raise InvalidArgumentError("azp_adj", f"must be a contiguous int32 tensor of shape ({N},), got "
                                                  f"{_describe(azp_adj)}")
        _same_device(azp_adj, "azp_adj", device)
        if azp is not None:
            if not isinstance(azp, torch.Tensor) or azp.dtype != torch.int32 \
                    or tuple(azp.shape) not in ((M,), (M, 1)) or not azp.is_contiguous():
                raise InvalidArgumentError("azp", f"must be a contiguous int32 tensor of shape ({M},), got "
                                                  f"{_describe(azp)}")
            _same_device(azp, "azp", device)
    if out is not None:
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != (M, N) or out.dtype != out_dtype:
            raise InvalidArgumentError("out", f"must be a ({M}, {N}) {out_dtype} tensor, got {_describe(out)}")
        _same_device(out, "out", device)
        if out.stride(1) != 1 or (M > 1 and (out.stride(0) < N or out.stride(0) % N_ALIGN)):
            raise InvalidArgumentError("out", f"must be row-major with a leading dimension that is a multiple of "
                                              f"{N_ALIGN} and a 16-byte aligned pointer, got strides {out.stride()}")
        if M > 1:
            _check_size("out", "the leading dimension", out.stride(0))
        clash = _overlap(out, (("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias),
                               ("azp_adj", azp_adj), ("azp", azp)))
        if clash:
            raise InvalidArgumentError("out", f"overlaps the memory of `{clash}`; the kernel would read what it "
                                              f"writes: pass a separate output tensor")
    return M, N, K, sa, sb


_F32 = torch.float32


def _fast_layout(a, b, scale_a, scale_b, out_dtype, bias, out):
    """Accept the common, valid case cheaply: (M, N, K, scale_a kind, scale_b kind) or None.

    None means "not obviously valid": `validate` then either raises the precise error or accepts an
    unusual valid layout. Every condition here is one `validate` also enforces."""
    if type(a) is not torch.Tensor or type(b) is not torch.Tensor or type(scale_a) is not torch.Tensor \
            or type(scale_b) is not torch.Tensor:
        return None
    dt = a.dtype
    if dt not in _IN_NAMES or b.dtype is not dt or out_dtype not in _OUT_NAMES:
        return None
    sa_, sb_ = a.stride(), b.stride()
    if len(sa_) != 2 or len(sb_) != 2 or sa_[1] != 1 or sb_[0] != 1:
        return None
    M, K = a.shape
    K2, N = b.shape
    lda, ldb = sa_[0], sb_[1]
    if K2 != K or K == 0 or K % 16 or N % 8 or ldb < K or ldb % 16 or (M > 1 and (lda < K or lda % 16)):
        return None
    if M >= SIZE_LIMIT or N >= SIZE_LIMIT or K >= SIZE_LIMIT or lda >= SIZE_LIMIT or ldb >= SIZE_LIMIT:
        return None
    dev = a.device  # (not get_device(): it is -1 for both CPU and meta)
    if b.device != dev or scale_a.device != dev or scale_b.device != dev \
            or scale_a.dtype is not _F32 or scale_b.dtype is not _F32:
        return None
    if scale_a.numel() == 1:
        sa = "tensor" if scale_a.dim() <= 2 else None
    else:
        sa = "token" if scale_a.shape in ((M, 1), (M,)) and scale_a.is_contiguous() else None
    if scale_b.numel() == 1:
        sb = "tensor" if scale_b.dim() <= 2 else None
    else:
        sb = "channel" if scale_b.shape in ((1, N), (N,)) and scale_b.is_contiguous() else None
    if sa is None or sb is None:
        return None
    if bias is not None and (type(bias) is not torch.Tensor or bias.dtype is not out_dtype
                             or bias.shape not in ((N,), (1, N)) or not bias.is_contiguous()
                             or bias.device != dev):
        return None
    if out is not None:
        if type(out) is not torch.Tensor or out.dtype is not out_dtype or out.shape != (M, N) \
                or out.device != dev:
            return None
        so = out.stride()
        if so[1] != 1 or (M > 1 and (so[0] < N or so[0] % 8 or so[0] >= SIZE_LIMIT)):
            return None
        if _overlap(out, (("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias))):
            return None
    if a.is_cuda and ((a.data_ptr() | b.data_ptr() | (0 if out is None else out.data_ptr())) & 15):
        return None
    return M, N, K, sa, sb


def check_pointers(a, b, out=None) -> None:
    """16-byte aligned data pointers, which TMA and 128-bit loads need (real tensors only)."""
    for name, t in (("a", a), ("b", b), ("out", out)):
        if t is not None and t.data_ptr() % 16:
            raise InvalidArgumentError(name, "data pointer must be 16-byte aligned (slice offsets break this)")


def _describe(t) -> str:
    if isinstance(t, torch.Tensor):
        return f"{t.dtype} {tuple(t.shape)} strides {t.stride()} on {t.device}"
    return repr(t)
