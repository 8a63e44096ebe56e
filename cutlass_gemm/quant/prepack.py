"""Prepacking a `WeightOnlyQuant` into the layout the small-M weight-only kernel loads (W4A16 / W8A16).

Layout "wo_mma_sm80_v1" (runtime/csrc/wo_gemm.cuh reads it; SM80 and SM90, mma.sync m16n8k16):

- The (N, K) weight is cut into warp tiles of 32 columns (n) x 64 input features (k). Tile (nb, kb) is
  stored at words [kb * W, (kb + 1) * W) of row nb of `qweight` ((N / 32, K * bits) int32, W = 256 for
  int4, 512 for int8), so one warp's stream along K is contiguous.
- Inside a tile, 16-byte vector v of lane l sits at byte (v * 32 + l) * 16: each lane's 128-bit loads
  (2 for int4, 4 for int8) are exactly its mma B fragments for the tile's 4 n8 x 4 k16 mma steps.
  Lane l = 4 * g + t (g = l // 4, t = l % 4) holds column t8 * 8 + g of each n8 sub-tile t8 and, per k16
  step, the k offsets 2t, 2t + 1, 2t + 8, 2t + 9 (the mma B fragment).
- int4: word w (= 4 v + c) holds sub-tile t8 = w // 2 and k16 steps 2h, 2h + 1 (h = w % 2): its 8
  elements e0..e7 (step 2h: e0..e3, step 2h + 1: e4..e7, each in fragment order) sit in nibbles
  ordered e0 e2 e4 e6 e1 e3 e5 e7 (low to high), so `lop3((word >> 4i) & 0x000f000f | magic)` gives
  the pair (e2i, e2i+1) as a half2/bfloat162 with no shuffle (magic 0x6400 = 1024 for fp16,
  0x4300 = 128 for bf16).
- int8: word w holds sub-tile t8 = w // 4, k16 step w % 4, its 4 elements in bytes 0..3.
- Values are stored unsigned: symmetric q + 2^(b-1), or q as is with zero points.
- `scales` is (K / g, N) (per channel: (1, N)) in the scale dtype; within each block of 32 columns,
  position 4g + t8 holds column 8 t8 + g, so a lane's 4 scales are one 8-byte load.
- `zeros` (zero points only) is laid out like `scales`, holding each zero point as an exact integer in
  the scale dtype (the kernel subtracts (magic + zero) exactly, then multiplies by the scale: one rounding).

Alignment: N % 32 == 0 and K % 64 == 0 (group sizes 32/64/128 divide 64-aligned K only in whole groups
of a k64 tile half); other shapes raise InvalidArgumentError naming `weight`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import torch

from ..errors import InvalidArgumentError
from .weight_only import BITS, GROUP_SIZES, SCALE_DTYPES, WeightOnlyQuant

Tensor = torch.Tensor

LAYOUT = "wo_mma_sm80_v1"
#: the SM90 mixed-input (large-M) kernel's layout: quant/prepack_mixed.py
LAYOUT_MIXED = "cutlass_mixed_sm90_v1"
#: the SM80 W8A16 upcast (large-M) kernel's layout: quant/prepack_upcast.py
LAYOUT_UPCAST = "cutlass_upcast_sm80_v1"
LAYOUTS = (LAYOUT, LAYOUT_MIXED, LAYOUT_UPCAST)
N_ALIGN = 32
K_ALIGN = 64
_INT4_ORDER = (0, 2, 4, 6, 1, 3, 5, 7)  # element held by nibble p of an int4 word
_FRAG_K = (0, 1, 8, 9)                  # k offset (+ 2t) of the 4 values of an mma B fragment


@dataclass(frozen=True)
class PackedWeight:
    """A weight-only quantized (N, K) weight in a kernel's layout (see the module docstring)."""

    qweight: Tensor            # (N / 32, K * bits) int32, the kernel's load order
    scales: Tensor             # (K / g, N) or (1, N), float16 / bfloat16, columns permuted per 32
    zeros: Optional[Tensor]    # like scales (exact integer zero points) or None (symmetric)
    perm: Optional[Tensor]     # (K,) int64 act-order gather of the activations, or None
    layout: str
    bits: int
    group_size: Optional[int]  # None: per channel
    n: int
    k: int

    @property
    def has_zero(self) -> bool:
        return self.zeros is not None

    @property
    def scale_dtype(self) -> torch.dtype:
        return self.scales.dtype

    @property
    def device(self) -> torch.device:
        return self.qweight.device

    @property
    def name(self) -> str:
        """Deterministic description, e.g. 'wo_mma_sm80_v1:int4:g128:sym:bfloat16:4096x4096'."""
        g = "channel" if self.group_size is None else f"g{self.group_size}"
        return (f"{self.layout}:int{self.bits}:{g}:{'zp' if self.has_zero else 'sym'}:"
                f"{str(self.scale_dtype).replace('torch.', '')}:{self.n}x{self.k}{':act_order' if self.perm is not None else ''}")

    def to(self, device) -> "PackedWeight":
        mv = (lambda t: None if t is None else t.to(device))
        return replace(self, qweight=mv(self.qweight), scales=mv(self.scales), zeros=mv(self.zeros), perm=mv(self.perm))


def unservable_reason(n: int, k: int) -> Optional[str]:
    """Why the small-M kernel's layout cannot hold an (N, K) weight, or None."""
    if n % N_ALIGN:
        return f"out_features={n} is not a multiple of {N_ALIGN} (the weight-only kernel's warp tile)"
    if k % K_ALIGN:
        return f"in_features={k} is not a multiple of {K_ALIGN} (the weight-only kernel's warp tile)"
    return None


# ------------------------------------------------------------------------------------ index maps
def _tile_map(bits: int, device) -> Tensor:
    """Flat index n_local * 64 + k_local (in a 32 x 64 tile) of each packed field, in storage order:
    shape (words per tile, fields per word)."""
    vecs, fields = (2, 8) if bits == 4 else (4, 4)
    v = torch.arange(vecs, device=device).view(-1, 1, 1, 1)
    lane = torch.arange(32, device=device).view(1, -1, 1, 1)
    c = torch.arange(4, device=device).view(1, 1, -1, 1)
    p = torch.arange(fields, device=device).view(1, 1, 1, -1)
    g, t = lane // 4, lane % 4
    w = v * 4 + c
    if bits == 4:
        e = torch.tensor(_INT4_ORDER, device=device)[p]
        t8, step = w // 2, 2 * (w % 2) + e // 4
        r = e % 4
    else:
        t8, step, r = w // 4, w % 4, p
    koff = torch.tensor(_FRAG_K, device=device)[r] + 2 * t + 16 * step
    n_local = t8 * 8 + g
    return (n_local * 64 + koff).reshape(-1, fields)


def _col_perm(n: int, device) -> Tensor:
    """Source column of each stored scale column: position 4g + t8 of a 32-block holds column 8 t8 + g."""
    pos = torch.arange(32, device=device)
    src = (pos % 4) * 8 + pos // 4
    return (torch.arange(0, n, 32, device=device).view(-1, 1) + src).reshape(-1)


def _check_wq(wq: WeightOnlyQuant) -> None:
    if not isinstance(wq, WeightOnlyQuant):
        raise InvalidArgumentError("wq", f"must be a WeightOnlyQuant, got {type(wq).__name__}")
    n, k = wq.q.shape
    why = unservable_reason(n, k)
    if why is not None:
        raise InvalidArgumentError("weight", why)
    if wq.bits not in BITS:
        raise InvalidArgumentError("bits", f"must be one of {BITS}, got {wq.bits!r}")
    if wq.group_size is not None and wq.group_size not in GROUP_SIZES:
        raise InvalidArgumentError("group_size", f"must be None or one of {GROUP_SIZES}, got {wq.group_size!r}")
    if wq.scale.dtype not in SCALE_DTYPES:
        raise InvalidArgumentError("scale", f"must be float16 or bfloat16, got {wq.scale.dtype}")


# ------------------------------------------------------------------------------------ pack / unpack
def prepack(wq: WeightOnlyQuant, layout: str = "mma_sm80", *, device=None) -> PackedWeight:
    """Reorder `wq` into `layout`: "mma_sm80" (the small-M mma kernel), "cutlass_mixed_sm90" (the SM90
    large-M mixed-input kernel, `prepack_mixed.prepack_mixed`) or "cutlass_upcast_sm80" (the SM80 W8A16 large-M
    kernel, `prepack_upcast.prepack_upcast`); the versioned name is recorded. Runs with
    torch ops on `wq`'s device (then moved to `device` if given)."""
    if layout in ("cutlass_mixed_sm90", LAYOUT_MIXED):
        from .prepack_mixed import prepack_mixed
        return prepack_mixed(wq, device=device)
    if layout in ("cutlass_upcast_sm80", LAYOUT_UPCAST):
        from .prepack_upcast import prepack_upcast
        return prepack_upcast(wq, device=device)
    if layout not in ("mma_sm80", LAYOUT):
        raise InvalidArgumentError("layout", f"must be 'mma_sm80' ({LAYOUT}), 'cutlass_mixed_sm90' ({LAYOUT_MIXED}) or "
                                             f"'cutlass_upcast_sm80' ({LAYOUT_UPCAST}), got {layout!r}")
    _check_wq(wq)
    n, k = wq.q.shape
    bits, dev = wq.bits, wq.q.device
    half = 2 ** (bits - 1)
    u = wq.q.to(torch.int64) + (0 if wq.zero is not None else half)  # unsigned storage
    # offline, so reading two values back is fine: an out-of-range q would spill into its neighbour field
    if bool(u.min() < 0) or bool(u.max() > 2 ** bits - 1):
        rng = f"[0, {2 ** bits - 1}]" if wq.zero is not None else f"[{-half}, {half - 1}]"
        raise InvalidArgumentError("wq", f"q values must lie in {rng} for int{bits}")
    if wq.zero is not None and (bool(wq.zero.min() < 0) or bool(wq.zero.max() > 2 ** bits)):
        raise InvalidArgumentError("wq", f"zero points must lie in [0, {2 ** bits}] for int{bits}")
    tiles = u.reshape(n // 32, 32, k // 64, 64).permute(0, 2, 1, 3).reshape(n // 32, k // 64, 32 * 64)
    fields = tiles[:, :, _tile_map(bits, dev).reshape(-1)].reshape(n // 32, k // 64, -1, 32 // bits)
    shifts = torch.arange(0, 32, bits, device=dev)
    words = (fields << shifts).sum(-1)  # fields are disjoint bit ranges: sum == or
    words = torch.where(words >= 2 ** 31, words - 2 ** 32, words).to(torch.int32).reshape(n // 32, k * bits)
    cols = _col_perm(n, dev)
    scales = wq.scale.t().contiguous()[:, cols].contiguous()
    zeros = None if wq.zero is None else wq.zero.t().to(wq.scale.dtype)[:, cols].contiguous()
    packed = PackedWeight(words.contiguous(), scales, zeros, wq.perm, LAYOUT, bits, wq.group_size, n, k)
    return packed if device is None else packed.to(device)


def unpack(packed: PackedWeight) -> WeightOnlyQuant:
    """The inverse of `prepack` (torch ops on the packed tensors' device; no host synchronisation)."""
    if isinstance(packed, PackedWeight) and packed.layout == LAYOUT_MIXED:
        from .prepack_mixed import unpack_mixed
        return unpack_mixed(packed)
    if isinstance(packed, PackedWeight) and packed.layout == LAYOUT_UPCAST:
        from .prepack_upcast import unpack_upcast
        return unpack_upcast(packed)
    check_packed(packed.qweight, packed.scales, packed.zeros, layout=packed.layout, bits=packed.bits,
                 group_size=packed.group_size, n=packed.n, k=packed.k)
    n, k, bits = packed.n, packed.k, packed.bits
    dev = packed.qweight.device
    shifts = torch.arange(0, 32, bits, device=dev)
    words = packed.qweight.to(torch.int64).reshape(n // 32, k // 64, -1, 1) & 0xFFFFFFFF
    fields = ((words >> shifts) & (2 ** bits - 1)).reshape(n // 32, k // 64, -1)
    tiles = torch.empty_like(fields)
    tiles[:, :, _tile_map(bits, dev).reshape(-1)] = fields
    u = tiles.reshape(n // 32, k // 64, 32, 64).permute(0, 2, 1, 3).reshape(n, k)
    inv = torch.argsort(_col_perm(n, dev))
    scale = packed.scales[:, inv].t().contiguous()
    if packed.zeros is None:
        return WeightOnlyQuant((u - 2 ** (bits - 1)).to(torch.int16), scale, None, bits, packed.group_size, packed.perm)
    zero = packed.zeros[:, inv].t().to(torch.int16).contiguous()
    return WeightOnlyQuant(u.to(torch.int16), scale, zero, bits, packed.group_size, packed.perm)


def dequantize_packed(packed: PackedWeight, dtype: torch.dtype) -> Tensor:
    """The (N, K) weight in `dtype` as the kernel forms it, columns in input-feature order: (q - z) * s
    in float32 (exact: at most 9-bit integers times 11-bit scales) rounded once to `dtype`. Torch ops on
    the packed tensors' device, no host synchronisation (the large-M fallback uses it)."""
    wq = unpack(packed)
    g = packed.group_size or packed.k
    q = wq.q.to(torch.float32)
    if wq.zero is not None:
        q = q - wq.zero.to(torch.float32).repeat_interleave(g, dim=1)
    w = (q * wq.scale.to(dtype).to(torch.float32).repeat_interleave(g, dim=1)).to(dtype)
    if packed.perm is not None:
        w = w.index_select(1, torch.argsort(packed.perm))
    return w


def check_packed(qweight, scales, zeros, *, layout: str, bits: int, group_size: Optional[int], n: int, k: int,
                 expect_layout: str = LAYOUT) -> None:
    """Raise InvalidArgumentError (naming the argument) unless the tensors are a `expect_layout` packing of
    an (n, k) weight with `bits` and `group_size` (either layout: "wo_mma_sm80_v1" or, through
    prepack_mixed.check_mixed_tensors, "cutlass_mixed_sm90_v1"). Shape and dtype checks only: no tensor
    value is read."""
    if layout != expect_layout:
        raise InvalidArgumentError("layout", f"the kernel reads {expect_layout!r}, got a weight packed as {layout!r}")
    if bits not in BITS:
        raise InvalidArgumentError("bits", f"must be one of {BITS}, got {bits!r}")
    if group_size is not None and group_size not in GROUP_SIZES:
        raise InvalidArgumentError("group_size", f"must be None or one of {GROUP_SIZES}, got {group_size!r}")
    if not isinstance(n, int) or not isinstance(k, int) or n < 1 or k < 1 or unservable_reason(n, k):
        raise InvalidArgumentError("qweight", unservable_reason(n, k) if isinstance(n, int) and isinstance(k, int)
                                   and n > 0 and k > 0 else f"bad shape n={n!r}, k={k!r}")
    if group_size is not None and k % group_size:
        raise InvalidArgumentError("group_size", f"K = {k} is not a multiple of group_size = {group_size}")
    want = (k // 16, n * bits // 2) if expect_layout == LAYOUT_MIXED else (n // 32, k * bits)
    if not isinstance(qweight, Tensor) or qweight.dtype != torch.int32 or tuple(qweight.shape) != want:
        got = f"{qweight.dtype} {tuple(qweight.shape)}" if isinstance(qweight, Tensor) else type(qweight).__name__
        raise InvalidArgumentError("qweight", f"must be int32 {want} for int{bits} {n}x{k} in {expect_layout}, got {got}")
    if not qweight.is_contiguous():
        raise InvalidArgumentError("qweight", "must be contiguous")
    groups = k // (group_size or k)
    for name, t in (("scales", scales), ("zeros", zeros)):
        if t is None and name == "zeros":
            continue
        if not isinstance(t, Tensor) or t.dtype not in SCALE_DTYPES or tuple(t.shape) != (groups, n):
            got = f"{t.dtype} {tuple(t.shape)}" if isinstance(t, Tensor) else type(t).__name__
            raise InvalidArgumentError(name, f"must be float16/bfloat16 ({groups}, {n}), got {got}")
        if not t.is_contiguous():
            raise InvalidArgumentError(name, "must be contiguous")
        if t.device != qweight.device:
            raise InvalidArgumentError(name, f"must be on {qweight.device} like qweight, got {t.device}")
    if zeros is not None and zeros.dtype != scales.dtype:
        raise InvalidArgumentError("zeros", f"must have the scales' dtype {scales.dtype}, got {zeros.dtype}")
