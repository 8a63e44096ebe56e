"""The SM90 CUTLASS path of `scaled_mm_blockwise_int8`: BlockwiseConfig kernels with in_dtype "s8".

A CUDA call takes it (`plan` returns a config) when all of these hold; otherwise the extension's mma.sync
kernel (runtime/csrc/bi8_gemm.cuh), which serves every valid call, runs it:
- the device is SM90 (capability cached per device: no query after the first call),
- block_size is 128: the kernel promotes one 128-deep k-tile per scale block, and the FP8 collective it
  builds on refuses a 64-deep promotion interval (`ScalePromotionInterval % 4`),
- INT8_SELECTION (kernels/blockwise.py) picks a kernel for M (M <= 16: the extension's split-K decode),
- N % 8 == 0 (the TMA store of 16-byte output rows),
- CUTLASS_GEMM_BI8_SM90 is not "0" (an opt-out for A/B comparisons, read when the module is imported).
Layouts are not a routing condition, so one M always takes one kernel (the same bits whatever the views):
the kernel needs 16-byte aligned a / b rows and bias (TMA) and contiguous (rows, K / 128) scales (the
collective's K-major scale layout), and `run` passes contiguous copies of views that are not (the scales
are small; a misaligned operand view is copied per call, as the extension kernel does).
A kernel that cannot be loaded or built is reported once (`BlockwiseInt8KernelWarning`) and that config
then runs the extension kernel: a visible fallback, never a silent one.
"""
from __future__ import annotations

import os
import warnings
from typing import Dict, Optional

import torch

from ..errors import BuildError, KernelNotBuiltError
from ..kernels.blockwise import BlockwiseConfig, select_int8_config

Tensor = torch.Tensor
ENV = "CUTLASS_GEMM_BI8_SM90"
#: False: every CUDA call runs the extension kernel (CUTLASS_GEMM_BI8_SM90=0).
ENABLED = os.environ.get(ENV, "1") != "0"
BLOCK = 128
_OUT = {torch.bfloat16: "bf16", torch.float16: "f16"}
_sm90: Dict[int, bool] = {}
_unavailable: Dict[str, str] = {}


class BlockwiseInt8KernelWarning(UserWarning):
    """An SM90 per-block int8 kernel could not be loaded or built; its calls run the extension kernel."""


def is_sm90(device: torch.device) -> bool:
    """Whether `device` is an SM90 GPU (cached per device index)."""
    dev = device.index if device.index is not None else torch.cuda.current_device()
    ok = _sm90.get(dev)
    if ok is None:
        ok = _sm90[dev] = torch.cuda.get_device_capability(dev) == (9, 0)
    return ok


def _tma_ready(t: Tensor) -> Tensor:
    """`t`, or a contiguous copy where its rows are not 16-byte aligned (TMA; a host check of the view)."""
    if t.data_ptr() % 16 == 0 and (t.shape[0] <= 1 or t.stride(0) % 16 == 0):
        return t
    return t.contiguous() if not t.is_contiguous() else t.clone()


def _contiguous(t: Tensor) -> Tensor:
    """A row-major (rows, K / 128) scale table (a copy of any other view; the data is small)."""
    return t if t.is_contiguous() else t.contiguous()


def plan(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor], out_dtype: torch.dtype,
         activation: str, block_size: int) -> Optional[BlockwiseConfig]:
    """The SM90 kernel this (validated, CUDA) call runs, or None for the extension kernel (module docstring).
    Reads shapes, strides and pointers only."""
    if not ENABLED or block_size != BLOCK or not is_sm90(a.device):
        return None
    m, n = a.shape[0], b.shape[0]
    cfg = select_int8_config(_OUT[out_dtype], m, activation)
    if cfg is None or cfg.name in _unavailable or n % 8:
        return None
    return cfg


def load(cfg: BlockwiseConfig):
    """The kernel library of `cfg`, or None after a warning when it cannot be loaded or built (then that
    config is not planned again in this process)."""
    from ..runtime import loader
    try:
        return loader.get_kernel(cfg)
    except (KernelNotBuiltError, BuildError, OSError) as exc:
        _unavailable[cfg.name] = str(exc)
        warnings.warn(f"cutlass_gemm scaled_mm_blockwise_int8: SM90 kernel {cfg.name} unavailable ({exc}); its "
                      f"calls run the extension's mma.sync kernel", BlockwiseInt8KernelWarning, stacklevel=3)
        return None


def run(lib, a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor],
        out_dtype: torch.dtype) -> Tensor:
    """Launch the loaded kernel `lib` on the current stream (arguments as `plan` accepted them)."""
    a, b, scale_a, scale_b = _tma_ready(a), _tma_ready(b), _contiguous(scale_a), _contiguous(scale_b)
    if bias is not None and bias.data_ptr() % 16:
        bias = bias.clone()
    m, k = a.shape
    n = b.shape[0]
    out = torch.empty((m, n), dtype=out_dtype, device=a.device)
    if m == 0:
        return out
    dev = a.get_device()
    with torch.cuda.device(dev):
        ws_bytes = lib.workspace_size(m, n, k)
        ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device=a.device)
        lib.launch(a.data_ptr(), b.data_ptr(), out.data_ptr(), scale_a.data_ptr(), scale_b.data_ptr(),
                   None if bias is None else bias.data_ptr(), m, n, k, a.stride(0) if m > 1 else k,
                   b.stride(0) if n > 1 else k, n, ws.data_ptr(), ws_bytes, torch.cuda.current_stream(dev).cuda_stream)
    return out


def run_config(cfg: BlockwiseConfig, a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor,
               bias: Optional[Tensor] = None, out_dtype: torch.dtype = torch.bfloat16) -> Tensor:
    """One named int8 kernel on a validated call, whatever INT8_SELECTION says (benchmarks and tests: every
    candidate). Raises KernelNotBuiltError/BuildError instead of falling back."""
    from ..runtime import loader
    if cfg.in_dtype != "s8" or _OUT[out_dtype] != cfg.out_dtype:
        raise ValueError(f"{cfg.name} is not an int8 kernel with {out_dtype} output")
    return run(loader.get_kernel(cfg), a, b, scale_a, scale_b, bias, out_dtype)
