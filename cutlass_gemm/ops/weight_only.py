"""Weight-only GEMM op (W4A16 / W8A16): `cutlass_gemm::weight_only_mm` and `weight_only_linear`.

    y = weight_only_linear(x, packed, bias=None)       # x (..., K) fp16/bf16, packed = quant.prepack(wq)

Backends (`weight_only_backend(m, packed)` says which one a call of M rows takes):
- "mma_small_m": CUDA, 1 <= M <= `small_m_limit(N, K)` (64; on layers of fewer than 4096 output features up to
  256 rows, or more while M * N * K <= 2^27, as row blocks: wo_heuristics.row_block_limit): the kernels of
  runtime/csrc/wo_gemm.cuh and its siblings (int4/int8, symmetric or zero points, group 32/64/128 or per channel,
  fp16/bf16), on the current stream, no host sync; split-K with a deterministic in-kernel reduction where N gives too
  few CTAs.
- "dequant_fallback": CUDA, M above that without a mixed-input copy (below) or off SM90, or the extension could not be
  built: the packed weight is dequantized to a dense (N, K) weight in x's dtype (one kernel,
  runtime/csrc/wo_dequant.cuh; torch ops when there is no extension), then `F.linear` (cuBLAS). No host
  sync; it rebuilds the full weight each call (for 8192 x 8192: 134 MB written and read again), so it
  is slower than bf16 `F.linear` alone; announced by a `WeightOnlyFallbackWarning` (shown once per call
  site by Python's default warning filter).
- "cpu_reference": CPU tensors: `unpack(...).dequantize()` in float32 and a float32 matmul, output in
  x's dtype.
- "cutlass_mixed_sm90": a weight packed in layout "cutlass_mixed_sm90_v1" (`prepack(wq,
  "cutlass_mixed_sm90")`; `WeightOnlyLinear(..., large_m_backend="cutlass_mixed")` keeps such a copy for
  M >= `mixed_from_m(bits, N, K)`: 33, or 65 at 4096 x 4096, past the row blocks below 4096 output features) runs CUTLASS's SM90
  mixed-input GEMM (kernels/mixed_input.py: the kernel per M bucket from its measured SELECTION; group 64/128 or
  per channel) on an SM90 GPU (every selectable kernel checked against float64 on the H100, session14).
  CUTLASS_GEMM_WO_MIXED_INPUT=0 switches it off; elsewhere, or switched off, such a weight takes the dequantize fallback at every M (torch ops,
  with a WeightOnlyFallbackWarning).
- "cutlass_upcast_sm80" (session 57): a symmetric per-channel int8 weight in layout "cutlass_upcast_sm80_v1"
  (`prepack(wq, "cutlass_upcast_sm80")`; `WeightOnlyLinear(..., large_m_backend="cutlass_upcast")` keeps such a copy
  for M above `small_m_limit(N, K)`) runs CUTLASS 2's mixed-input upcast GEMM (kernels/emit_mixed80.py) on SM80-SM89;
  elsewhere, or switched off by the same variable, the dequantize fallback (torch ops, announced).

Act-order weights (`packed.perm`) gather the activations first (`x[..., perm]`, one small gather
kernel). Scales stored in the other 16-bit dtype than x are converted per call (a small extra kernel;
`nn.WeightOnlyLinear` stores them in its own dtype so that it never happens there). Every argument is
checked before any kernel runs; problems raise `InvalidArgumentError` naming the argument.
"""
from __future__ import annotations

import functools
from typing import Optional, Tuple

import torch
import torch.nn.functional as F

from ..errors import InvalidArgumentError, warn_user
from ..quant.prepack import LAYOUT, LAYOUT_MIXED, LAYOUT_UPCAST, PackedWeight, check_packed, dequantize_packed, unpack
from ..quant.prepack_mixed import check_mixed_tensors, dequantize_mixed
from ..quant.prepack_upcast import check_upcast
from ..kernels.mixed_input import select_config, sm80_config
from ..runtime import extension, fastpath
from . import wo_heuristics
from .gemm import _eager_direct
from .wo_mixed import _aligned, _rows_aligned, launch_mixed  # launch_mixed: also imported from here by tools, tests
from ._registry import define_op

Tensor = torch.Tensor
SMALL_M_MAX = 64
#: The switch for the SM90 mixed-input kernel: on unless set to 0/false/no/off, which sends mixed-layout weights to
#: the (warned) dequantize fallback.
MIXED_INPUT_ENV = "CUTLASS_GEMM_WO_MIXED_INPUT"
_HALF = (torch.float16, torch.bfloat16)


class WeightOnlyFallbackWarning(UserWarning):
    """A weight-only call took the dequantize-then-F.linear fallback (M > 64, or no extension)."""


# ------------------------------------------------------------------------------------ validation
def _check_call(x, qweight, scales, zeros, bias, perm, layout, bits, group_size, n) -> None:
    if not isinstance(x, Tensor):
        raise InvalidArgumentError("x", f"must be a torch.Tensor, got {type(x).__name__}")
    if x.dtype not in _HALF:
        raise InvalidArgumentError("x", f"dtype must be float16 or bfloat16, got {x.dtype}")
    if x.dim() < 1:
        raise InvalidArgumentError("x", "must have at least one dimension (..., K)")
    if x.shape[-1] > 1 and x.stride(-1) != 1:
        raise InvalidArgumentError("x", f"last dimension must be contiguous (stride 1), got strides {x.stride()}")
    if not isinstance(qweight, Tensor):
        raise InvalidArgumentError("qweight", f"must be a torch.Tensor, got {type(qweight).__name__}")
    k = x.shape[-1]
    if layout == LAYOUT_MIXED:
        check_mixed_tensors(qweight, scales, zeros, layout=layout, bits=bits, group_size=group_size or None, n=n, k=k)
    elif layout == LAYOUT_UPCAST:
        if bits != 8 or group_size:
            raise InvalidArgumentError("bits", f"{LAYOUT_UPCAST} holds int8 per-channel weights (bits 8, group 0)")
        check_upcast(qweight, scales, zeros, n, k)
    else:
        check_packed(qweight, scales, zeros, layout=layout, bits=bits, group_size=group_size or None, n=n, k=k)
    if qweight.device != x.device:
        raise InvalidArgumentError("qweight", f"must be on {x.device} like x, got {qweight.device}")
    if scales.device != x.device:
        raise InvalidArgumentError("scales", f"must be on {x.device} like x, got {scales.device}")
    if bias is not None:
        if not isinstance(bias, Tensor) or tuple(bias.shape) != (n,) or bias.dtype != x.dtype:
            got = f"{bias.dtype} {tuple(bias.shape)}" if isinstance(bias, Tensor) else type(bias).__name__
            raise InvalidArgumentError("bias", f"must be a ({n},) {x.dtype} tensor, got {got}")
        if bias.device != x.device:
            raise InvalidArgumentError("bias", f"must be on {x.device} like x, got {bias.device}")
        if not bias.is_contiguous():
            raise InvalidArgumentError("bias", "must be contiguous")
    if perm is not None:
        if not isinstance(perm, Tensor) or perm.dtype != torch.int64 or tuple(perm.shape) != (k,):
            raise InvalidArgumentError("perm", f"must be a ({k},) int64 tensor")
        if perm.device != x.device:
            raise InvalidArgumentError("perm", f"must be on {x.device} like x, got {perm.device}")


def _packed(qweight, scales, zeros, perm, layout, bits, group_size, n, k) -> PackedWeight:
    return PackedWeight(qweight, scales, zeros, perm, layout, bits, group_size or None, n, k)


# ------------------------------------------------------------------------------------ backends
def mixed_input_enabled() -> bool:
    """Whether the SM90 mixed-input kernel may serve (default yes; CUTLASS_GEMM_WO_MIXED_INPUT=0, "false",
    "no" or "off" switches it off)."""
    import os
    return os.environ.get(MIXED_INPUT_ENV, "1").strip().lower() not in ("0", "false", "no", "off")


@functools.lru_cache(maxsize=None)
def _is_sm90(index: int) -> bool:
    return torch.cuda.get_device_capability(index) == (9, 0)


@torch.compiler.assume_constant_result  # a layer's forward asks it: traced as the value it has, not into
def mixed_usable(device: torch.device) -> bool:
    """Whether the SM90 mixed-input kernel can serve a call on `device` (an SM90 GPU, not opted out)."""
    return mixed_input_enabled() and device.type == "cuda" and \
        _is_sm90(device.index if device.index is not None else torch.cuda.current_device())


@torch.compiler.assume_constant_result
def upcast_usable(device: torch.device) -> bool:
    """Whether the SM80 W8A16 upcast kernel serves calls on `device`: a GPU whose int8 kernel family is SM80's
    (SM80-SM89; ops.gemm.kernel_sm), not opted out with CUTLASS_GEMM_WO_MIXED_INPUT=0."""
    if not (mixed_input_enabled() and device.type == "cuda"):
        return False
    from ..kernels.heuristics import family_sm
    from .gemm import kernel_sm
    try:
        return family_sm(kernel_sm(device.index if device.index is not None else torch.cuda.current_device()),
                         "int8") == 80
    except Exception:  # a GPU no kernel family serves
        return False


def weight_only_backend(m: int, packed: PackedWeight, mixed: Optional[PackedWeight] = None) -> str:
    """Which implementation a call with `m` rows (the product of x's leading dims) on `packed`'s device
    takes: "mma_small_m", "cutlass_mixed_sm90", "cutlass_upcast_sm80", "dequant_fallback" or "cpu_reference" (see
    the module docstring). `mixed`: a large-M copy of the same weight, "cutlass_mixed_sm90_v1" (serves M >=
    `mixed_from_m(bits, N, K)` on SM90; `WeightOnlyLinear(..., large_m_backend="cutlass_mixed")`) or
    "cutlass_upcast_sm80_v1" (serves M above `small_m_limit(N, K)` on SM80-SM89; large_m_backend="cutlass_upcast").
    On CUDA this loads (first use: builds) the extension."""
    for name, p in (("packed", packed), ("mixed", mixed)):
        if not isinstance(p, PackedWeight) and (p is not None or name == "packed"):
            raise InvalidArgumentError(name, f"must be a PackedWeight, got {type(p).__name__}")
    if mixed is not None and mixed.layout not in (LAYOUT_MIXED, LAYOUT_UPCAST):
        raise InvalidArgumentError("mixed", f"layout must be {LAYOUT_MIXED!r} or {LAYOUT_UPCAST!r}, got {mixed.layout!r}")
    if not isinstance(m, int) or isinstance(m, bool) or m < 0:
        raise InvalidArgumentError("m", f"must be an int >= 0, got {m!r}")
    if not packed.qweight.is_cuda:
        return "cpu_reference"
    if packed.layout == LAYOUT_MIXED:
        return "cutlass_mixed_sm90" if mixed_usable(packed.device) else "dequant_fallback"
    if packed.layout == LAYOUT_UPCAST:
        return "cutlass_upcast_sm80" if upcast_usable(packed.device) else "dequant_fallback"
    if mixed is not None and mixed.layout == LAYOUT_UPCAST:
        if m > small_m_limit(packed.n, packed.k) and upcast_usable(mixed.device):
            return "cutlass_upcast_sm80"
    elif mixed is not None and m >= mixed_from_m(packed.bits, packed.n, packed.k) and mixed_usable(mixed.device):
        return "cutlass_mixed_sm90"
    if m <= small_m_limit(packed.n, packed.k) and extension.load() is not None:
        return "mma_small_m"
    return "dequant_fallback"


def small_m_limit(n: int, k: Optional[int] = None) -> int:
    """The most rows the small-M kernels serve on an N x K layer (wo_heuristics.row_block_limit): SMALL_M_MAX, more
    on layers narrower than 4096 output features (row blocks). Host arithmetic."""
    return wo_heuristics.row_block_limit(n, k)


def mixed_from_m(bits: int, n: int, k: Optional[int] = None) -> int:
    """Rows from which an N x K layer holding the mixed-input copy calls its kernel instead of the small-M kernel
    (wo_heuristics.MIXED_FROM; k None: the catch-all rows)."""
    return wo_heuristics.mixed_from(bits, n, k)


@functools.lru_cache(maxsize=1024)
def layer_rows(bits: int, n: int, k: int) -> Tuple[int, int]:
    """(mixed_from_m, small_m_limit) of a `bits`-bit N x K layer, memoized: `nn.WeightOnlyLinear.forward` asks both
    on every call, and their table walks cost host time an eager decode step does not have."""
    return mixed_from_m(bits, n, k), small_m_limit(n, k)


def _impl(x, qweight, scales, zeros, bias, perm, *, layout, bits, group_size, n):
    _check_call(x, qweight, scales, zeros, bias, perm, layout, bits, group_size, n)
    k = x.shape[-1]
    x2 = x.reshape(-1, k)
    m = x2.shape[0]
    lead = tuple(x.shape[:-1])
    if layout in (LAYOUT_MIXED, LAYOUT_UPCAST) and x.is_cuda:
        return _impl_large(x2, qweight, scales, zeros, bias, perm, layout, bits, group_size, n).reshape(lead + (n,))
    if not x.is_cuda:
        wq = unpack(_packed(qweight, scales, zeros, perm, layout, bits, group_size, n, k))
        y = x2.to(torch.float32) @ wq.dequantize(torch.float32).t()
        if bias is not None:
            y = y + bias.to(torch.float32)
        return y.to(x.dtype).reshape(lead + (n,))
    if perm is not None:
        x2 = x2.index_select(1, perm)
    if scales.dtype != x.dtype:
        scales = scales.to(x.dtype)
        zeros = None if zeros is None else zeros.to(x.dtype)
    ext = extension.load() if m > 0 else None
    limit = small_m_limit(n, k)
    if ext is not None and 0 < m <= limit:
        y = _small_m(ext, x2, qweight, scales, zeros, bias, bits, group_size, n)
    elif m == 0:
        y = x2.new_empty((0, n))
    else:
        _warn_fallback(f"M = {m} > {limit} (or no compiled extension)", bits, x.dtype)
        if ext is not None:  # one kernel writes the dense weight (wo_dequant.cuh), then cuBLAS
            w = ext.wo_dequant(_aligned(qweight, 16), scales, zeros, bits, group_size, n, k)
        else:  # no extension: the same values with torch ops (slower)
            w = dequantize_packed(_packed(qweight, scales, zeros, None, layout, bits, group_size, n, k), x.dtype)
        y = F.linear(x2, w, bias)
    return y.reshape(lead + (n,))


def _small_m(ext, x2, qweight, scales, zeros, bias, bits, group_size, n):
    """The small-M kernel on checked arguments (x2 2-D, 1 <= M <= small_m_limit, scales in x2's dtype, no perm)."""
    if not _rows_aligned(x2):  # cp.async reads 16-byte chunks: copy a misaligned view once
        x2 = x2.clone(memory_format=torch.contiguous_format)
    qweight, scales, zeros, bias = _aligned(qweight, 16), _aligned(scales, 16), _aligned(zeros, 16), _aligned(bias, 4)
    variant = wo_heuristics.select_variant(x2.shape[0], n, x2.shape[1], bits)  # host table lookup
    return ext.wo_gemm(x2, qweight, scales, zeros, bias, bits, group_size, n, 0, variant)


def _impl_large(x2, qweight, scales, zeros, bias, perm, layout, bits, group_size, n):
    """CUDA call on a large-M layout: a "cutlass_mixed_sm90_v1" weight runs the SM90 mixed-input kernel when opted
    in on SM90, a "cutlass_upcast_sm80_v1" weight the SM80 upcast kernel on SM80-SM89; else the dequantize fallback
    (torch ops: no extension kernel reads these layouts), announced."""
    m, k = x2.shape
    if perm is not None:
        x2 = x2.index_select(1, perm)
    if scales.dtype != x2.dtype:
        scales = scales.to(x2.dtype)
    if m == 0:
        return x2.new_empty((0, n))
    act_dtype = "bf16" if x2.dtype == torch.bfloat16 else "f16"
    if layout == LAYOUT_UPCAST:  # symmetric per-channel int8 (_check_call): no zeros, bits 8
        if upcast_usable(x2.device):
            return launch_mixed(sm80_config(act_dtype), x2, qweight, scales, None, bias, 0, n, register_fast=False)
        _warn_fallback(f"a {LAYOUT_UPCAST} weight off an SM80-SM89 GPU or with {MIXED_INPUT_ENV}=0", bits, x2.dtype)
        return F.linear(x2, (qweight.to(torch.float32) * scales.reshape(n, 1).to(torch.float32)).to(x2.dtype), bias)
    if mixed_usable(x2.device):
        cfg = select_config(act_dtype, bits, zeros is not None, m, n, k, group_size)
        return launch_mixed(cfg, x2, qweight, scales, zeros, bias, group_size, n)
    _warn_fallback(f"a {LAYOUT_MIXED} weight off an SM90 GPU or with {MIXED_INPUT_ENV}=0", bits, x2.dtype)
    packed = _packed(qweight, scales, zeros, None, LAYOUT_MIXED, bits, group_size, n, k)
    return F.linear(x2, dequantize_mixed(packed, x2.dtype), bias)


def _warn_fallback(why: str, bits: int, dtype: torch.dtype) -> None:
    """Announce the dequantize-then-F.linear fallback, naming the user's line (errors.warn_user)."""
    warn_user(f"cutlass_gemm weight_only_mm: {why}: dequantizing the int{bits} weight to {dtype} and calling "
              f"F.linear (slow, documented fallback; see weight_only_backend)", WeightOnlyFallbackWarning)


# ------------------------------------------------------------------------------------ registration
_OP = define_op("weight_only_mm(Tensor x, Tensor qweight, Tensor scales, Tensor? zeros, Tensor? bias, Tensor? perm, *, "
                "str layout, int bits, int group_size, int n) -> Tensor", _impl)


@torch.library.register_fake(_OP)
def _(x, qweight, scales, zeros, bias, perm, *, layout, bits, group_size, n):
    return x.new_empty(tuple(x.shape[:-1]) + (n,))


# ------------------------------------------------------------------------------------ public API
def weight_only_mm(x: Tensor, qweight: Tensor, scales: Tensor, zeros: Optional[Tensor] = None,
                   bias: Optional[Tensor] = None, perm: Optional[Tensor] = None, *, layout: str = LAYOUT,
                   bits: int = 4, group_size: Optional[int] = 128, n: Optional[int] = None) -> Tensor:
    """y (..., N) = x (..., K) @ W^T (+ bias) for a weight packed by `quant.prepack` (its tensors passed
    one by one; `weight_only_linear` takes the PackedWeight). `group_size` None: per channel. `n`
    defaults to the scales' width."""
    if n is None:
        n = scales.shape[-1] if isinstance(scales, Tensor) and scales.dim() == 2 else -1
    _check_call(x, qweight, scales, zeros, bias, perm, layout, bits, group_size, n)
    if layout == LAYOUT_MIXED and x.is_cuda and _eager_direct(x):
        # eager prefill on the mixed-input copy: the op's own implementation after the one check above, without
        # the dispatcher round trip and its second check
        k = x.shape[-1]
        return _impl_large(x.reshape(-1, k), qweight, scales, zeros, bias, perm, layout, bits, group_size or 0,
                           n).reshape(tuple(x.shape[:-1]) + (n,))
    if layout == LAYOUT and perm is None and x.is_cuda and scales.dtype == x.dtype and _eager_direct(x):
        # The eager hot path (decode): the checked arguments straight to the kernel, without the dispatcher
        # round trip and the second check of the op's implementation (the W8A8 layers' C++ entry does the same).
        k = x.shape[-1]
        x2 = x.reshape(-1, k)
        if 0 < x2.shape[0] <= small_m_limit(n, k):
            ext = extension.load()
            if ext is not None:
                return _small_m(ext, x2, qweight, scales, zeros, bias, bits, group_size or 0, n).reshape(
                    tuple(x.shape[:-1]) + (n,))
    return torch.ops.cutlass_gemm.weight_only_mm(x, qweight, scales, zeros, bias, perm, layout=layout, bits=bits,
                                                 group_size=group_size or 0, n=n)


_fast_ext = None


def layer_fast_call(x: Tensor, qweight: Tensor, scales: Tensor, zeros: Optional[Tensor], bias: Optional[Tensor],
                    bits: int, group_size: Optional[int], n: int) -> Optional[Tensor]:
    """The eager call of `nn.WeightOnlyLinear` on a weight without act-order: one C++ call that checks all the
    kernel relies on and launches it (`wo_linear_fast`), or None when anything is off (not eager, not CUDA,
    M > small_m_limit, a mismatched or misaligned tensor, no extension): the caller then takes `weight_only_mm`, which
    serves the call or raises the typed error. About 10 us of host time per call fewer than that path."""
    global _fast_ext
    if type(x) is not Tensor or not x.is_cuda or not _eager_direct(x) or x.dim() < 1:
        return None
    if _fast_ext is None:
        _fast_ext = extension.load() or False
    if not _fast_ext:
        return None
    k = x.shape[-1]
    m = x.numel() // k if k else 0
    if not 0 < m <= small_m_limit(n, k):
        return None
    return _fast_ext.wo_linear_fast(x, qweight, scales, zeros, bias, bits, group_size or 0, n,
                                    wo_heuristics.select_variant_cached(m, n, k, bits))


def mixed_fast_call(x: Tensor, qweight: Tensor, scales: Tensor, bias: Optional[Tensor], bits: int,
                    group_size: Optional[int], n: int) -> Optional[Tensor]:
    """The eager call of `nn.WeightOnlyLinear` on its symmetric mixed-input copy: one C++ call
    (csrc/wo_mixed_fast.cpp) that checks what the kernel relies on and launches the kernel `launch_mixed`
    registered for this exact shape, or None (not eager, first call of a shape, anything unusual, a failed
    launch): the caller then takes `weight_only_mm`, which serves the call, registers the shape or raises the
    typed error. The caller checks `mixed_usable` first."""
    if type(x) is not Tensor or not x.is_cuda or not _eager_direct(x):
        return None
    fast = fastpath.module()
    if fast is None:
        return None
    y = fast.mixed_linear_fast(x, qweight, scales, bias, bits, group_size or 0, n)
    return y if isinstance(y, Tensor) else None


def weight_only_linear(x: Tensor, packed: PackedWeight, bias: Optional[Tensor] = None) -> Tensor:
    """`F.linear(x, W, bias)` for the weight-only quantized W in `packed`: x (..., K) fp16/bf16, any
    leading dims; output (..., N) in x's dtype. Typed errors (InvalidArgumentError) before any kernel."""
    if not isinstance(packed, PackedWeight):
        raise InvalidArgumentError("packed", f"must be a PackedWeight (quant.prepack), got {type(packed).__name__}")
    if isinstance(x, Tensor) and x.dim() >= 1 and x.shape[-1] != packed.k:
        raise InvalidArgumentError("x", f"last dimension must be K = {packed.k}, got {x.shape[-1]}")
    return weight_only_mm(x, packed.qweight, packed.scales, packed.zeros, bias, packed.perm, layout=packed.layout,
                          bits=packed.bits, group_size=packed.group_size, n=packed.n)
