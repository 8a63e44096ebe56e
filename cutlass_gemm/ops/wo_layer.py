"""The call `nn.WeightOnlyLinear` makes: which of the layer's weight copies serves this many rows, then that call.

    weight_only_layer(x, qweight, scales, zeros, bias, perm, qweight_mixed, scales_mixed, zeros_mixed,
                      qweight_upcast, scales_upcast, bits, group_size, n, dtype) -> (..., n) in x's dtype

The copies are the layer's buffers (nn/weight_only.py): the small-M kernel's (always), CUTLASS's SM90 mixed-input
copy and the SM80-SM89 upcast copy (each None when the layer has none). The rows decide (ops/weight_only.py
`layer_rows`): the upcast copy above the small-M kernels' rows on SM80-SM89; the mixed copy from `mixed_from_m` rows
on SM90 (and, where it cannot run, above the small-M limit through the op's announced fallback); else the small-M
copy. Eager CUDA calls take the one-call C++ entries where they serve (`layer_fast_call`, `mixed_fast_call`).

Traced calls (torch.compile, fake tensors, dispatch modes) are one registered op, `cutlass_gemm::weight_only_layer`,
whose implementation is the eager call on the concrete tensors: the copy is chosen from the real rows when it runs, so
a graph with a symbolic batch carries no guard on the rows (ops/linear.py does the same for the W8A8 layers).
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import Tensor

from ..quant.prepack import LAYOUT, LAYOUT_MIXED, LAYOUT_UPCAST
from ._registry import define_op
from .gemm import _eager_direct
from .weight_only import _check_call, layer_fast_call, layer_rows, mixed_fast_call, mixed_usable, upcast_usable, weight_only_mm


def weight_only_layer(x: Tensor, qweight: Tensor, scales: Tensor, zeros: Optional[Tensor], bias: Optional[Tensor],
                      perm: Optional[Tensor], qweight_mixed: Optional[Tensor], scales_mixed: Optional[Tensor],
                      zeros_mixed: Optional[Tensor], qweight_upcast: Optional[Tensor], scales_upcast: Optional[Tensor],
                      bits: int, group_size: Optional[int], n: int, dtype: torch.dtype) -> Tensor:
    """x (..., K) -> (..., n) in x's dtype (`dtype`: the layer's, which x is computed in); see the module docstring."""
    if not _eager_direct(x):
        xd = x if not isinstance(x, Tensor) or x.dtype == dtype else x.to(dtype)
        _check_call(xd, qweight, scales, zeros, bias, perm, LAYOUT, bits, group_size, n)  # typed errors when traced
        y = torch.ops.cutlass_gemm.weight_only_layer(xd, qweight, scales, zeros, bias, perm, qweight_mixed,
                                                     scales_mixed, zeros_mixed, qweight_upcast, scales_upcast, bits,
                                                     group_size or 0, n, dtype)
        return y if y.dtype == x.dtype else y.to(x.dtype)
    return _run(x, qweight, scales, zeros, bias, perm, qweight_mixed, scales_mixed, zeros_mixed, qweight_upcast,
                scales_upcast, bits, group_size, n, dtype)


def _run(x, qweight, scales, zeros, bias, perm, qweight_mixed, scales_mixed, zeros_mixed, qweight_upcast,
         scales_upcast, bits, group_size, n, dtype) -> Tensor:
    """The call on concrete tensors (eager, or the op's implementation)."""
    k = x.shape[-1]
    rows = x.numel() // k if k else 0
    if qweight_upcast is not None and x.is_cuda:  # SM80-SM89 W8A16 above the small-M kernels' rows
        if rows > layer_rows(bits, n, k)[1] and upcast_usable(x.device):
            y = weight_only_mm(x if x.dtype == dtype else x.to(dtype), qweight_upcast, scales_upcast, None, bias,
                               perm, layout=LAYOUT_UPCAST, bits=8, group_size=0, n=n)
            return y if y.dtype == x.dtype else y.to(x.dtype)
    # rows from which the mixed-input copy's kernel is the faster one (ops.weight_only.mixed_from_m); up to
    # small_m_limit rows the small-M kernel still serves where the mixed kernel cannot run (not SM90, opted out)
    usable = mixed = False
    if qweight_mixed is not None and x.is_cuda:
        from_m, limit = layer_rows(bits, n, k)
        if rows >= from_m:
            usable = mixed_usable(x.device)
            mixed = usable or rows > limit  # unusable beyond: the op's announced fallback
    if perm is None and x.dtype == dtype and not mixed:  # eager decode: one C++ call (None: below)
        y = layer_fast_call(x, qweight, scales, zeros, bias, bits, group_size, n)
        if y is not None:
            return y
    xd = x if x.dtype == dtype else x.to(dtype)
    if mixed:
        if usable and zeros_mixed is None and perm is None and x.dtype == dtype:
            y = mixed_fast_call(x, qweight_mixed, scales_mixed, bias, bits, group_size, n)  # eager: one C++ call
            if y is not None:
                return y
        y = weight_only_mm(xd, qweight_mixed, scales_mixed, zeros_mixed, bias, perm, layout=LAYOUT_MIXED, bits=bits,
                           group_size=group_size, n=n)
    else:
        y = weight_only_mm(xd, qweight, scales, zeros, bias, perm, layout=LAYOUT, bits=bits, group_size=group_size,
                           n=n)
    return y if y.dtype == x.dtype else y.to(x.dtype)


def _impl(x, qweight, scales, zeros, bias, perm, qweight_mixed, scales_mixed, zeros_mixed, qweight_upcast,
          scales_upcast, bits, group_size, n, dtype):
    return _run(x, qweight, scales, zeros, bias, perm, qweight_mixed, scales_mixed, zeros_mixed, qweight_upcast,
                scales_upcast, bits, group_size or None, n, dtype)


_OP = define_op("weight_only_layer(Tensor x, Tensor qweight, Tensor scales, Tensor? zeros, Tensor? bias, Tensor? perm, "
                "Tensor? qweight_mixed, Tensor? scales_mixed, Tensor? zeros_mixed, Tensor? qweight_upcast, "
                "Tensor? scales_upcast, int bits, int group_size, int n, ScalarType dtype) -> Tensor", _impl)


@torch.library.register_fake(_OP)
def _(x, qweight, scales, zeros, bias, perm, qweight_mixed, scales_mixed, zeros_mixed, qweight_upcast, scales_upcast,
      bits, group_size, n, dtype):
    return x.new_empty(tuple(x.shape[:-1]) + (n,))
