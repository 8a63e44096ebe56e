"""The launch of the CUTLASS mixed-input GEMMs behind `weight_only_mm` (the SM90 kernels on a "cutlass_mixed_sm90_v1"
weight, the SM80 upcast kernel on a "cutlass_upcast_sm80_v1" weight), and the alignment guards the weight-only
kernels share (the small-M kernel of ops/weight_only.py and the convolution of ops/conv_wo.py copy a misaligned view
through them).

`launch_mixed` is the op's path after its checks and its kernel choice; ops/weight_only.py re-exports it, where
tools/bench_mixed_sweep.py and the GPU tests import it from.
"""
from __future__ import annotations

import contextlib
from typing import Optional

import torch

from ..quant.prepack_mixed import zero_term
from ..runtime import fastpath, loader

Tensor = torch.Tensor


def _rows_aligned(x2: Tensor) -> bool:
    """Whether every row of the 16-bit x2 starts on a 16-byte boundary, as the kernels' 16-byte loads need."""
    return x2.data_ptr() % 16 == 0 and (x2.shape[0] <= 1 or x2.stride(0) % 8 == 0)


def _aligned(t: Optional[Tensor], nbytes: int) -> Optional[Tensor]:
    """`t`, or a fresh copy where a view's offset breaks the kernel's `nbytes`-byte loads (host check)."""
    return t if t is None or t.data_ptr() % nbytes == 0 else t.clone()


def launch_mixed(cfg, x2: Tensor, qweight: Tensor, scales: Tensor, zeros: Optional[Tensor], bias: Optional[Tensor],
                 group_size: int, n: int, register_fast: bool = True) -> Tensor:
    """Run the mixed-input kernel `cfg` (a MixedInputConfig of x2's dtype and the weight's format) on checked
    arguments: x2 (M, K) with M > 0, a "cutlass_mixed_sm90_v1" weight, scales in x2's dtype, no perm. The
    op's path after its checks and its kernel choice; tools/bench_mixed_sweep.py times every candidate
    kernel through it. The SM80 upcast kernel takes the same ABI on a "cutlass_upcast_sm80_v1" weight
    (`register_fast=False`: the C++ layer entry knows the SM90 layout only)."""
    m, k = x2.shape
    lib = loader.get_kernel(cfg)
    if not _rows_aligned(x2):  # TMA reads 16-byte aligned rows
        x2 = x2.clone(memory_format=torch.contiguous_format)
    zt = None if zeros is None else zero_term(scales, zeros, x2.dtype)
    qweight, scales, bias = _aligned(qweight, 16), _aligned(scales, 16), _aligned(bias, 16)
    out = torch.empty((m, n), dtype=x2.dtype, device=x2.device)
    group = group_size or k
    idx = x2.device.index
    # The launcher sizes the workspace and runs on the current device: make x's current only when it is not
    # (the guard's enter/exit is host time on every call otherwise); torch's raw current-stream accessor
    # builds no Stream object.
    with (contextlib.nullcontext() if torch.cuda.current_device() == idx else torch.cuda.device(idx)):
        ws_bytes = lib.workspace_size(m, n, k, group)
        ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device=x2.device)
        ptr = (lambda t: None if t is None else t.data_ptr())
        lib.launch(qweight.data_ptr(), x2.data_ptr(), out.data_ptr(), scales.data_ptr(), ptr(zt), ptr(bias), m, n, k,
                   x2.stride(0) if m > 1 else k, n, group, ws.data_ptr(), ws_bytes,
                   torch._C._cuda_getCurrentRawStream(idx))
    if zeros is None and register_fast:  # the C++ layer entry (mixed_fast_call) serves this shape from now on
        fast = fastpath.module()
        if fast is not None:
            fast.register_mixed_plan(idx, cfg.bits, x2.dtype, m, n, k, group_size or 0, lib.function_address,
                                     lib.workspace_address)
    return out
