"""Operands copied into whole M tiles before an SM90 GEMM (the ops' side of kernels/heuristics.py padded_rows).

A TMA load of a partly empty last M tile fetches its out-of-bounds rows through L2, all of them on one L2 slice, and
the GEMM runs 1.1-1.8x slower than on the same rows padded to whole tiles (docs/performance.md, "Partial M tiles").
The W8A8 and blockwise layers quantize into whole tiles at no cost; `scaled_mm`, `scaled_mm_azp` and
`scaled_mm_blockwise` get a caller's unpadded operands and copy them (one launch of the extension's pad2d, started
early as a programmatic dependent: about 2 us beside the GEMM) where op_padded_rows says the copy pays
(heuristics.OP_PAD: the unpadded kernel's last M unit mostly empty, its out-of-bounds fetch large against the copy).
The kernel computes the padded rows and stores the caller's M only (cg_launch's m_padded, kernels/emit.py), into `out`
when given: no copy of the output. CUTLASS_GEMM_PAD_ROWS=0 turns that off (read when a call's plan is made: set it before the
first call of a shape), e.g. to compare the two.
"""
from __future__ import annotations

import os
from typing import Sequence, Tuple

import torch

from . import extension

PAD_ENV = "CUTLASS_GEMM_PAD_ROWS"


def enabled() -> bool:
    """Whether the ops pad a caller's rows to whole M tiles where the heuristics say so."""
    return os.environ.get(PAD_ENV, "1") not in ("0", "false", "no", "off")


def pad_into(pairs: Sequence[Tuple[torch.Tensor, torch.Tensor]]) -> None:
    """Copy each source into the leading corner of its destination (2-D, same dtype and device, unit last stride,
    the destination at least as large) and zero the rest of the destination, on the current stream: one launch of the
    extension's pad2d for up to four pairs, torch ops where the extension is unavailable."""
    ext = extension.load()
    if ext is not None and len(pairs) <= 4:
        ext.pad2d([s for s, _ in pairs], [d for _, d in pairs])
        return
    for src, dst in pairs:
        dst.zero_()
        dst[:src.shape[0], :src.shape[1]].copy_(src)


def padded(tensors: Sequence[torch.Tensor], rows: int) -> Tuple[torch.Tensor, ...]:
    """Each 2-D tensor (M rows, unit last stride) copied into a new contiguous one of `rows` rows, zero past M, all in
    one launch (pad_into). A 1-D tensor of M elements comes back with `rows` elements."""
    outs, pairs = [], []
    for t in tensors:
        flat = t.dim() == 1
        src = t.reshape(1, -1) if flat else t
        dst = torch.empty((1, rows) if flat else (rows, t.shape[1]), dtype=t.dtype, device=t.device)
        pairs.append((src, dst))
        outs.append(dst.view(rows) if flat else dst)
    pad_into(pairs)
    return tuple(outs)
