"""Prepacking for the SM90 mixed-input (large-M) weight-only GEMM: layout "cutlass_mixed_sm90_v1".

The kernel (kernels/emit_mixed.py) takes the (N, K) weight as CUTLASS's A operand, converts it to the
activation dtype in registers and feeds wgmma from registers. Its A fragment (m64 x k16, 16-bit) gives
thread t = 4 * (n % 8) + (k // 2) % 4 of a warp the 8 values of rows n % 8 and n % 8 + 8, columns
2 ((k // 2) % 4) + {0, 1} + {0, 8} of a 16 x 16 block. The layout stores those 8 values next to each
other, so one 32-bit (int4) / 64-bit (int8) shared-memory load fetches them, in the order CUTLASS's
fast converters expect. Within a 16 (n) x 16 (k) block, element (i, j) (i = n % 16, j = k % 16) is at

    atom(i, j) = 8 t + order(v),   t = 4 (i % 8) + (j // 2) % 4,   v = j % 2 + 2 (i // 8) + 4 (j // 8)

with order = [0 4 1 5 2 6 3 7] for int4 (the values of one thread end up as v = 0 2 4 6 1 3 5 7:
nibble pairs a LOP3 turns into two 16-bit values at once) and [0 2 1 3 4 6 5 7] for int8. Blocks are
stored one after another, N fastest: block (n // 16, k // 16) starts at element 256 (n // 16 + (N / 16)
(k // 16)). This is CUTLASS's `compute_memory_reordering_atom` (example 55) with a [0 2 4 6 1 3 5 7] /
[0 2 1 3] value shuffle, tiled by `tile_to_shape`; tests/test_weight_only_mixed.py compiles that
function on the CPU and compares the two maps element by element.

Storage: element offset o is bits [b (o % (32 / b)), ...) of int32 word o // (32 / b) (little-endian
sub-byte packing, CUTLASS's `int4b_t` / `int8_t` arrays); `qweight` is that word array shaped
(K / 16, N * bits / 2): row r holds the 16-column slab r of every row of W. Values: symmetric weights
as signed two's complement (`int4b_t` / `int8_t`), zero-point weights as unsigned q (`uint4b_t` /
`uint8_t`).

`scales` is (K / g, N) (per channel: (1, N)), N contiguous, no permutation (the collective loads it
N-major with TMA). `zeros` holds the integer zero points the same way, exactly, in the scale dtype (so
that `unpack` is exact); the kernel wants the additive term instead (w = q * s + zero_term), which
`zero_term` computes per call as -(z * s) rounded once to the activation dtype.

Group sizes 64, 128 or per channel: the collective needs the group to be a multiple of its 64-wide K
tile (group 32 weights stay on the small-M layout; their large-M calls take the dequantize fallback).
Shapes: N % 32 == 0 and K % 64 == 0 like the small-M layout (a layer keeps both).
"""
from __future__ import annotations

from typing import Optional

import torch

from ..errors import InvalidArgumentError
from .prepack import PackedWeight, _check_wq
from .weight_only import BITS, WeightOnlyQuant

Tensor = torch.Tensor

LAYOUT_MIXED = "cutlass_mixed_sm90_v1"
MIXED_GROUP_SIZES = (64, 128)
ATOM = 16
_VALUE_ORDER = {4: (0, 4, 1, 5, 2, 6, 3, 7), 8: (0, 2, 1, 3, 4, 6, 5, 7)}


def atom_offsets(bits: int) -> Tensor:
    """(16, 16) int64: storage offset of element (n % 16, k % 16) inside its block (module docstring)."""
    if bits not in BITS:
        raise InvalidArgumentError("bits", f"must be one of {BITS}, got {bits!r}")
    i = torch.arange(ATOM).view(-1, 1)
    j = torch.arange(ATOM).view(1, -1)
    t = 4 * (i % 8) + (j // 2) % 4
    v = j % 2 + 2 * (i // 8) + 4 * (j // 8)
    return 8 * t + torch.tensor(_VALUE_ORDER[bits])[v]


def storage_offsets(n: int, k: int, bits: int) -> Tensor:
    """(n, k) int64: the storage offset (in elements) of every weight element; a permutation of n * k."""
    rows = torch.arange(n).view(-1, 1)
    cols = torch.arange(k).view(1, -1)
    block = rows // ATOM + (n // ATOM) * (cols // ATOM)
    return atom_offsets(bits)[rows % ATOM, cols % ATOM] + ATOM * ATOM * block


def _check_mixed_group(group_size: Optional[int]) -> None:
    if group_size is not None and group_size not in MIXED_GROUP_SIZES:
        raise InvalidArgumentError("group_size", f"the mixed-input kernel takes group sizes {MIXED_GROUP_SIZES} or per "
                                                 f"channel (a multiple of its 64-wide K tile), got {group_size!r}; "
                                                 f"group 32 stays on the small-M layout")


def prepack_mixed(wq: WeightOnlyQuant, *, device=None) -> PackedWeight:
    """Reorder `wq` into layout "cutlass_mixed_sm90_v1" (module docstring). Torch ops on `wq`'s device
    (then moved to `device` if given); offline, so it may read values back to check their range."""
    _check_wq(wq)
    _check_mixed_group(wq.group_size)
    n, k = wq.q.shape
    bits = wq.bits
    q = wq.q.to(torch.int64)
    lo, hi = (0, 2 ** bits - 1) if wq.zero is not None else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    if bool(q.min() < lo) or bool(q.max() > hi):
        raise InvalidArgumentError("wq", f"q values must lie in [{lo}, {hi}] for int{bits}"
                                         f"{' with zero points' if wq.zero is not None else ''}")
    fields = torch.empty(n * k, dtype=torch.int64, device=q.device)
    fields[storage_offsets(n, k, bits).to(q.device).reshape(-1)] = (q & (2 ** bits - 1)).reshape(-1)
    per = 32 // bits
    words = (fields.view(-1, per) << torch.arange(0, 32, bits, device=q.device)).sum(-1)  # disjoint: sum == or
    words = torch.where(words >= 2 ** 31, words - 2 ** 32, words).to(torch.int32)
    scales = wq.scale.t().contiguous()
    zeros = None if wq.zero is None else wq.zero.t().to(wq.scale.dtype).contiguous()
    packed = PackedWeight(words.reshape(k // ATOM, n * bits // 2).contiguous(), scales, zeros, wq.perm,
                          LAYOUT_MIXED, bits, wq.group_size, n, k)
    return packed if device is None else packed.to(device)


def unpack_mixed(packed: PackedWeight) -> WeightOnlyQuant:
    """The inverse of `prepack_mixed` (torch ops on the packed tensors' device; no host synchronisation)."""
    check_packed_mixed(packed)
    n, k, bits = packed.n, packed.k, packed.bits
    dev = packed.qweight.device
    words = packed.qweight.to(torch.int64).reshape(-1, 1) & 0xFFFFFFFF
    fields = ((words >> torch.arange(0, 32, bits, device=dev)) & (2 ** bits - 1)).reshape(-1)
    u = fields[storage_offsets(n, k, bits).to(dev).reshape(-1)].reshape(n, k)
    scale = packed.scales.t().contiguous()
    if packed.zeros is None:
        q = torch.where(u >= 2 ** (bits - 1), u - 2 ** bits, u)  # two's complement
        return WeightOnlyQuant(q.to(torch.int16), scale, None, bits, packed.group_size, packed.perm)
    zero = packed.zeros.t().to(torch.int16).contiguous()
    return WeightOnlyQuant(u.to(torch.int16), scale, zero, bits, packed.group_size, packed.perm)


def zero_term(scales: Tensor, zeros: Tensor, dtype: torch.dtype) -> Tensor:
    """The kernel's additive zero tensor, -(z * s), in `dtype`: z * s is exact in float32 (a 9-bit integer
    times an 11-bit significand), so the value is rounded once."""
    return (zeros.to(torch.float32) * scales.to(dtype).to(torch.float32)).neg_().to(dtype)


def dequantize_mixed(packed: PackedWeight, dtype: torch.dtype) -> Tensor:
    """The (N, K) weight as the mixed-input kernel forms it, columns in input-feature order: symmetric
    dtype(q * s); with zero points dtype(q * s + zero_term), each rounded once. The collective writes
    `q * s + z` in the 16-bit type and nvcc contracts it into one HFMA2 (checked in the SASS of
    sm90_mixed_f16_int8_zp: HFMA2, no HMUL2), so there is no rounding between the product and the sum.
    q * s + zero_term is exact in float64, then rounded to `dtype`."""
    wq = unpack_mixed(packed)
    g = packed.group_size or packed.k
    s = wq.scale.to(dtype).to(torch.float64).repeat_interleave(g, dim=1)
    w = wq.q.to(torch.float64) * s
    if wq.zero is not None:
        w += zero_term(wq.scale, wq.zero, dtype).to(torch.float64).repeat_interleave(g, dim=1)
    w = w.to(dtype)
    if packed.perm is not None:
        w = w.index_select(1, torch.argsort(packed.perm))
    return w


def check_packed_mixed(packed: PackedWeight) -> None:
    """InvalidArgumentError (naming the argument) unless `packed` is a well-formed "cutlass_mixed_sm90_v1"
    packing. Shapes, dtypes and devices only: no tensor value is read."""
    check_mixed_tensors(packed.qweight, packed.scales, packed.zeros, layout=packed.layout, bits=packed.bits,
                        group_size=packed.group_size, n=packed.n, k=packed.k)


def check_mixed_tensors(qweight, scales, zeros, *, layout: str, bits: int, group_size: Optional[int], n: int,
                        k: int) -> None:
    """`check_packed_mixed` on the tensors one by one (what the op receives): prepack.check_packed with this
    layout's qweight shape, after the layout and the group sizes this kernel takes."""
    from .prepack import check_packed
    if layout != LAYOUT_MIXED:
        raise InvalidArgumentError("layout", f"the mixed-input kernel reads {LAYOUT_MIXED!r}, got a weight packed "
                                             f"as {layout!r}")
    if bits in BITS:
        _check_mixed_group(group_size)
    check_packed(qweight, scales, zeros, layout=layout, bits=bits, group_size=group_size, n=n, k=k,
                 expect_layout=LAYOUT_MIXED)
