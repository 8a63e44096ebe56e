"""Layout "cutlass_upcast_sm80_v1": a W8A16 per-channel weight as the SM80 upcast GEMM reads it (session 57).

The SM80 large-M kernel of the mixed-input family (kernels/emit_mixed80.py: CUTLASS 2's OpMultiplyAddMixedInputUpcast
GEMM) takes the weight as its B operand in plain form:

- `qweight`: (N, K) int8, the signed values q, row-major (a column-major (K, N) B operand), contiguous;
- `scales`: (1, N) in the scale dtype (float16 / bfloat16), the per-channel scale s[n], applied in the epilogue;
- no zero points (symmetric only), no groups (per channel only): CUTLASS 2's upcast mainloop has no scale operand;
- `perm`: an act-order gather of x, as in the other layouts (the op gathers x's columns first).

W[n, k] = s[n] * q[n, k]; the kernel computes x @ q^T in float32 and multiplies by s[n] once per output, where the
small-M kernels multiply each weight by its scale in the activation dtype (the two agree to that rounding).
"""
from __future__ import annotations

from typing import Optional

import torch

from ..errors import InvalidArgumentError
from .prepack import PackedWeight
from .weight_only import SCALE_DTYPES, WeightOnlyQuant

Tensor = torch.Tensor

LAYOUT_UPCAST = "cutlass_upcast_sm80_v1"
#: CUTLASS's operand alignments: 16 int8 of q per row (K % 16), 8 outputs per store (N % 8).
K_ALIGN = 16
N_ALIGN = 8


def upcast_reason(bits: int, group_size: Optional[int], zero_point: bool, n: int, k: int) -> Optional[str]:
    """Why a weight of this format and shape has no "cutlass_upcast_sm80_v1" form, or None."""
    if bits != 8 or group_size is not None or zero_point:
        return "the SM80 upcast kernel takes symmetric per-channel int8 weights (W8A16) only"
    if k % K_ALIGN or n % N_ALIGN:
        return f"N % {N_ALIGN} and K % {K_ALIGN} must be 0 (16-byte rows), got {n} x {k}"
    return None


def prepack_upcast(wq: WeightOnlyQuant, *, device=None) -> PackedWeight:
    """`wq` in layout "cutlass_upcast_sm80_v1" (torch ops on its device, then moved to `device` if given)."""
    n, k = wq.q.shape
    why = upcast_reason(wq.bits, wq.group_size, wq.zero is not None, n, k)
    if why:
        raise InvalidArgumentError("wq", why)
    q = wq.q.to(torch.int8).contiguous()
    packed = PackedWeight(q, wq.scale.reshape(1, n).contiguous(), None, wq.perm, LAYOUT_UPCAST, 8, None, n, k)
    return packed if device is None else packed.to(device)


def unpack_upcast(packed: PackedWeight) -> WeightOnlyQuant:
    """The inverse of `prepack_upcast`."""
    check_upcast(packed.qweight, packed.scales, packed.zeros, packed.n, packed.k)
    return WeightOnlyQuant(packed.qweight.to(torch.int16), packed.scales.reshape(packed.n, 1).contiguous(), None, 8,
                           None, packed.perm)


def check_upcast(qweight, scales, zeros, n: int, k: int) -> None:
    """InvalidArgumentError naming the argument unless the tensors are a "cutlass_upcast_sm80_v1" (n, k) weight
    (shapes and dtypes only: no value is read)."""
    if not isinstance(qweight, Tensor) or qweight.dtype != torch.int8 or tuple(qweight.shape) != (n, k) \
            or not qweight.is_contiguous():
        got = f"{qweight.dtype} {tuple(qweight.shape)}" if isinstance(qweight, Tensor) else type(qweight).__name__
        raise InvalidArgumentError("qweight", f"must be contiguous int8 ({n}, {k}) in {LAYOUT_UPCAST}, got {got}")
    if not isinstance(scales, Tensor) or scales.dtype not in SCALE_DTYPES or tuple(scales.shape) != (1, n):
        got = f"{scales.dtype} {tuple(scales.shape)}" if isinstance(scales, Tensor) else type(scales).__name__
        raise InvalidArgumentError("scales", f"must be float16/bfloat16 (1, {n}) in {LAYOUT_UPCAST}, got {got}")
    if zeros is not None:
        raise InvalidArgumentError("zeros", f"{LAYOUT_UPCAST} holds symmetric weights only")
    why = upcast_reason(8, None, False, n, k)
    if why:
        raise InvalidArgumentError("qweight", why)
