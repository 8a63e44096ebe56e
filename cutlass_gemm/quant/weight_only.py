"""Weight-only quantization formats (W4A16 / W8A16): the reference quantizer and checkpoint importers.

One format, `WeightOnlyQuant`, holds an (N, K) weight as one integer per element plus per-channel or
group-wise (along K) scales and optional zero points:

    w[n, perm[k]] = scale[n, k // group] * (q[n, k] - zero[n, k // group])      (zero = 0 when absent)

- symmetric (no zero point): q signed in [-2^(b-1), 2^(b-1) - 1];
- with zero points: q unsigned in [0, 2^b - 1], zero an integer (GPTQ's "v1" files can give 2^b);
- `perm` (act-order checkpoints) says which input feature each column of q belongs to, so that groups are
  contiguous along K; a layer applies it to the activations (x[..., perm]) or folds it into the
  previous layer. None means the identity.

`quantize_weight_only` is the reference quantizer (float64 math; q rounded with the scale as stored,
half to even); `from_gptq` and `from_awq` unpack the int32-packed tensors of those checkpoints. The
kernel layouts (nibble interleave, tile reorder) are a later step that starts from this format.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import torch

from ..errors import InvalidArgumentError

Tensor = torch.Tensor

BITS = (4, 8)
GROUP_SIZES = (32, 64, 128)
SCALE_DTYPES = (torch.float16, torch.bfloat16)
# order of the 8 nibbles of an AWQ int32 word: slot i holds column ORDER[i] of its 8 columns
AWQ_PACK_ORDER = (0, 2, 4, 6, 1, 3, 5, 7)


@dataclass(frozen=True)
class WeightOnlyQuant:
    """An (N, K) weight, weight-only quantized (see the module docstring for the formula)."""

    q: Tensor                    # (N, K) int16 (signed values, or unsigned ones with zero points)
    scale: Tensor                # (N, K // group_size), or (N, 1) per channel; float16 / bfloat16
    zero: Optional[Tensor]       # like scale, int16; None for symmetric
    bits: int
    group_size: Optional[int]    # None: per channel
    perm: Optional[Tensor] = None  # (K,) int64: input feature of each column of q; None: identity

    def dequantize(self, dtype: torch.dtype = torch.float64) -> Tensor:
        """The (N, K) weight this stands for, in the original input-feature order."""
        n, k = self.q.shape
        g = self.group_size or k
        q = self.q.to(torch.float64)
        if self.zero is not None:
            q = q - self.zero.to(torch.float64).repeat_interleave(g, dim=1)
        w = q * self.scale.to(torch.float64).repeat_interleave(g, dim=1)
        if self.perm is not None:
            out = torch.empty_like(w)
            out[:, self.perm] = w
            w = out
        return w.to(dtype)


def _check_bits_group(bits: int, group_size: Optional[int], k: int) -> None:
    if bits not in BITS:
        raise InvalidArgumentError("bits", f"must be one of {BITS}, got {bits!r}")
    if group_size is not None:
        if group_size not in GROUP_SIZES:
            raise InvalidArgumentError("group_size", f"must be None (per channel) or one of {GROUP_SIZES}, got {group_size!r}")
        if k % group_size:
            raise InvalidArgumentError("group_size", f"K = {k} is not a multiple of group_size = {group_size}")


def _scale_up(exact: Tensor, dtype: torch.dtype) -> Tensor:
    """`exact` (positive float64) stored in `dtype`, rounded up where rounding to nearest went down, so
    that the group's extreme values still land inside the integer range."""
    s = exact.clamp(min=torch.finfo(dtype).tiny).to(dtype)
    up = (s.view(torch.int16) + 1).view(dtype)  # positive finite: the next representable value above
    return torch.where(s.to(torch.float64) < exact, up, s)


def quantize_weight_only(weight: Tensor, bits: int = 4, group_size: Optional[int] = 128, *,
                         zero_point: bool = False, scale_dtype: Optional[torch.dtype] = None) -> WeightOnlyQuant:
    """Quantize an (N, K) weight (nn.Linear's layout) to `bits` per element.

    Symmetric: scale = amax / (2^(b-1) - 1) per group, q = clamp(round(w / scale)). With `zero_point`:
    the range [min(w, 0), max(w, 0)] maps onto [0, 2^b - 1], zero = round(-min / scale). Scales are
    stored in `scale_dtype` (default: the weight's dtype if 16-bit, else bfloat16), rounded up where
    rounding to nearest would shrink it (so the extremes stay in range), at least its smallest normal, 1
    for an all-zero group; q is rounded against the stored scale. Symmetric results are within half a
    step of the weight; with a zero point, whose rounding shifts the grid, within one step at a group's
    extremes. Non-finite weights are an error (offline: nothing to keep fast)."""
    if not isinstance(weight, Tensor) or weight.dim() != 2 or not weight.is_floating_point():
        raise InvalidArgumentError("weight", "must be a 2-D floating-point tensor (out_features, in_features)")
    n, k = weight.shape
    _check_bits_group(bits, group_size, k)
    if scale_dtype is None:
        scale_dtype = weight.dtype if weight.dtype in SCALE_DTYPES else torch.bfloat16
    if scale_dtype not in SCALE_DTYPES:
        raise InvalidArgumentError("scale_dtype", f"must be float16 or bfloat16, got {scale_dtype}")
    w = weight.detach().to("cpu", torch.float64)
    if not torch.isfinite(w).all():
        raise InvalidArgumentError("weight", "holds NaN or infinity")
    g = group_size or k
    wg = w.reshape(n, k // g, g)
    if zero_point:
        levels = 2 ** bits - 1
        lo, hi = wg.amin(-1).clamp(max=0.0), wg.amax(-1).clamp(min=0.0)
        rng = hi - lo
        scale = torch.where(rng > 0, _scale_up(rng / levels, scale_dtype), torch.ones((), dtype=scale_dtype))
        s64 = scale.to(torch.float64)
        zero = torch.round(-lo / s64).clamp(0, levels)
        q = (torch.round(wg / s64.unsqueeze(-1)) + zero.unsqueeze(-1)).clamp(0, levels)
        zero_t: Optional[Tensor] = zero.to(torch.int16)
    else:
        qmax = 2 ** (bits - 1) - 1
        amax = wg.abs().amax(-1)
        scale = torch.where(amax > 0, _scale_up(amax / qmax, scale_dtype), torch.ones((), dtype=scale_dtype))
        q = torch.round(wg / scale.to(torch.float64).unsqueeze(-1)).clamp(-qmax - 1, qmax)
        zero_t = None
    return WeightOnlyQuant(q.reshape(n, k).to(torch.int16), scale, zero_t, bits, group_size)


# ------------------------------------------------------------------------------------ checkpoints
def _unpack_int32(packed: Tensor, bits: int, dim: int, name: str) -> Tensor:
    """int32 words -> unsigned `bits`-wide fields, element i of a word in bits [i*b, (i+1)*b),
    laid out consecutively along `dim`."""
    if packed.dtype != torch.int32:
        raise InvalidArgumentError(name, f"must be int32 (packed {bits}-bit values), got {packed.dtype}")
    per = 32 // bits
    shifts = torch.arange(0, 32, bits, dtype=torch.int64)
    words = packed.to("cpu", torch.int64) & 0xFFFFFFFF
    fields = (words.unsqueeze(-1) >> shifts) & (2 ** bits - 1)  # (..., per) along a new last dim
    fields = fields.movedim(-1, dim + 1) if dim == 0 else fields
    shape = list(packed.shape)
    shape[dim] *= per
    return fields.reshape(shape)


def _scales(scales: Tensor, groups: int, n: int, name: str = "scales") -> Tensor:
    if scales.dim() != 2 or tuple(scales.shape) != (groups, n):
        raise InvalidArgumentError(name, f"must be ({groups}, {n}), got {tuple(scales.shape)}")
    if scales.dtype not in SCALE_DTYPES:  # a float32 scale would be rounded: say so rather than do it
        raise InvalidArgumentError(name, f"must be float16 or bfloat16, got {scales.dtype}")
    return scales.detach().to("cpu").t().contiguous()


def from_gptq(qweight: Tensor, qzeros: Tensor, scales: Tensor, g_idx: Optional[Tensor] = None, *,
              bits: int = 4, checkpoint_format: str = "gptq") -> WeightOnlyQuant:
    """Import a GPTQ linear layer: qweight (K * bits / 32, N) int32 packed along K, qzeros
    (G, N * bits / 32) int32 packed along N, scales (G, N), g_idx (K,) the group of each input feature
    (act-order when it is not k // (K / G)). checkpoint_format "gptq" stores each zero point minus one
    (AutoGPTQ's historical convention); "gptq_v2" stores it as is."""
    if bits not in BITS:
        raise InvalidArgumentError("bits", f"must be one of {BITS}, got {bits!r}")
    if checkpoint_format not in ("gptq", "gptq_v2"):
        raise InvalidArgumentError("checkpoint_format", f"must be 'gptq' or 'gptq_v2', got {checkpoint_format!r}")
    if qweight.dim() != 2 or qzeros.dim() != 2:
        raise InvalidArgumentError("qweight" if qweight.dim() != 2 else "qzeros", "must be 2-D")
    q_kn = _unpack_int32(qweight, bits, 0, "qweight")  # (K, N)
    k, n = q_kn.shape
    groups = scales.shape[0] if scales.dim() == 2 else -1
    if groups <= 0 or k % groups:
        raise InvalidArgumentError("scales", f"its {groups} groups do not divide K = {k}")
    g = k // groups
    zeros = _unpack_int32(qzeros, bits, 1, "qzeros")  # (G, N)
    if tuple(zeros.shape) != (groups, n):
        raise InvalidArgumentError("qzeros", f"unpacks to {tuple(zeros.shape)}, expected ({groups}, {n})")
    if checkpoint_format == "gptq":
        zeros = zeros + 1
    s = _scales(scales, groups, n)
    perm = None
    if g_idx is not None:
        gi = g_idx.detach().to("cpu", torch.int64)
        if tuple(gi.shape) != (k,) or gi.min() < 0 or gi.max() >= groups:
            raise InvalidArgumentError("g_idx", f"must be ({k},) group indices in [0, {groups})")
        if not torch.equal(gi, torch.arange(k) // g):
            if not torch.equal(torch.bincount(gi, minlength=groups), torch.full((groups,), g)):
                raise InvalidArgumentError("g_idx", f"every group must hold {g} input features")
            perm = torch.argsort(gi, stable=True)
            q_kn = q_kn[perm]
    return WeightOnlyQuant(q_kn.t().contiguous().to(torch.int16), s, zeros.t().contiguous().to(torch.int16),
                           bits, None if groups == 1 else g, perm)


def from_awq(qweight: Tensor, qzeros: Tensor, scales: Tensor, *, bits: int = 4) -> WeightOnlyQuant:
    """Import an AWQ (GEMM format) linear layer: qweight (K, N / 8) and qzeros (G, N / 8) int32, eight
    4-bit values per word along N in AWQ's order (AWQ_PACK_ORDER), scales (G, N); w = (q - zero) * scale."""
    if bits != 4:
        raise InvalidArgumentError("bits", f"AWQ checkpoints are 4-bit, got {bits!r}")
    if qweight.dim() != 2 or qzeros.dim() != 2:
        raise InvalidArgumentError("qweight" if qweight.dim() != 2 else "qzeros", "must be 2-D")
    undo = torch.tensor(AWQ_PACK_ORDER).argsort()  # column j of 8 sits in slot undo[j]

    def unpack(t: Tensor, name: str) -> Tensor:
        raw = _unpack_int32(t, 4, 1, name)  # (rows, N) in slot order
        rows, cols = raw.shape
        return raw.reshape(rows, cols // 8, 8)[:, :, undo].reshape(rows, cols)

    q_kn, zeros = unpack(qweight, "qweight"), unpack(qzeros, "qzeros")
    k, n = q_kn.shape
    groups = zeros.shape[0]
    if zeros.shape[1] != n or groups == 0 or k % groups:
        raise InvalidArgumentError("qzeros", f"{tuple(zeros.shape)} does not match qweight's (K, N) = ({k}, {n})")
    s = _scales(scales, groups, n)
    return WeightOnlyQuant(q_kn.t().contiguous().to(torch.int16), s, zeros.t().contiguous().to(torch.int16),
                           4, None if groups == 1 else k // groups)
