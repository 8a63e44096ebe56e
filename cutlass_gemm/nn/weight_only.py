"""Weight-only quantized linear layer (W4A16 / W8A16): `WeightOnlyLinear`, a drop-in for `nn.Linear`.

    layer = WeightOnlyLinear.from_float(linear, bits=4, group_size=128)           # or zero_point=True
    layer = WeightOnlyLinear.from_gptq(qweight, qzeros, scales, g_idx, bias)      # GPTQ checkpoint tensors
    layer = WeightOnlyLinear.from_awq(qweight, qzeros, scales, bias)              # AWQ (GEMM) checkpoint tensors
    y = layer(x)                                                                  # x (..., in_features)

The weight is stored prepacked for the small-M kernel (`cutlass_gemm.quant.prepack`, layout
"wo_mma_sm80_v1"); every forward is one `cutlass_gemm::weight_only_mm` call on the copy its rows take
(`cutlass_gemm.ops.wo_layer`; traced, one `cutlass_gemm::weight_only_layer` op that chooses when it runs; see
`cutlass_gemm.ops.weight_only` for the backends: the mma kernel for M <= 64 on CUDA, the documented
dequantize + F.linear fallback above, the float reference on the CPU).

All state lives in buffers: `qweight` (N / 32, K * bits) int32, `scales` (K / g, N) (per channel:
(1, N)) in the layer's dtype, `zeros` like scales (zero-point formats only), `perm` (K,) int64
(act-order only), `bias` (N,). A layer built with the same arguments (`bits`, `group_size`,
`zero_point`, `act_order`, `bias`) loads another's `state_dict`. Forward reads no tensor value on the
host (torch.compile(fullgraph=True) and CUDA-graph capture work).

Large M on SM90 (`large_m_backend="cutlass_mixed"`): the layer also keeps the weight prepacked for
CUTLASS's mixed-input GEMM (layout "cutlass_mixed_sm90_v1", buffers `qweight_mixed`, `scales_mixed`,
`zeros_mixed`; group 64/128 or per channel), and calls with M >= ops.weight_only.mixed_from_m (33, or 65 at
4096 x 4096; beyond the row blocks' limit below 4096 output features) on an SM90 GPU run that kernel (off with CUTLASS_GEMM_WO_MIXED_INPUT=0: then
M <= 64 keeps the small-M kernel and larger M the dequantize fallback). M <= 16 keeps the small-M kernel, so both copies are needed: the packed
weight and its scales take twice the memory (int4 8192 x 8192 g128: 2 x 34 MB instead of 34 MB, still half of
bf16's 134 MB). H100 figures: docs/weight_only.md.
Large M on SM80-SM89 (`large_m_backend="cutlass_upcast"`, session 57; W8A16 per channel, symmetric): the layer also
keeps the weight as plain (N, K) int8 (layout "cutlass_upcast_sm80_v1", buffers `qweight_upcast`, `scales_upcast`),
and calls with more rows than the small-M kernels take run CUTLASS 2's mixed-input upcast GEMM with the scale in its
epilogue instead of the dequantize fallback (the int8 weight stored twice: 2 x 67 MB at 8192 x 8192).
`from_float` and `quantize_model` default to "auto": "cutlass_mixed" when the current CUDA device is an
SM90 GPU and the group size is one it takes, "cutlass_upcast" on an SM80-SM89 GPU for symmetric per-channel int8,
else "dequant" (one copy; `__init__`, `from_packed` and the
checkpoint importers default to "dequant"). The resolved choice is in `large_m_backend` and `extra_repr`.
A state_dict loads into a layer built with any choice (since session 66): a large-M copy the checkpoint lacks is made
from its packed weight at load time, one the layer does not keep is dropped (`_load_from_state_dict`).

Casts: `.to(device)` moves every buffer; a cast to float16/bfloat16 moves the bias and the output
dtype along but never the scales (their dtype is part of the quantized format: the op converts them
per call when x's dtype differs, exact for bf16 -> fp16 scales in fp16's normal range); casts to
float32/float64 change nothing (inputs of those dtypes are computed in the layer's dtype and the
result is returned in the input's dtype).
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from ._buffers import HALF as _HALF, BufferReader, QuantizedBuffers, layer_dtype
from ..errors import InvalidArgumentError
from ..ops.weight_only import upcast_usable
from ..ops.wo_layer import weight_only_layer
from ..quant.prepack import LAYOUT, LAYOUT_MIXED, LAYOUT_UPCAST, PackedWeight, prepack, unpack, \
    unservable_reason as _layout_reason
from ..quant.prepack_mixed import MIXED_GROUP_SIZES, prepack_mixed
from ..quant.prepack_upcast import prepack_upcast
from ..quant.weight_only import BITS, GROUP_SIZES, from_awq, from_gptq, quantize_weight_only

# stored value of a zero weight, symmetric formats: every field holds 2^(bits-1)
_SYM_ZERO_WORD = {4: -0x77777778, 8: -0x7F7F7F80}  # 0x88888888, 0x80808080 as int32
LARGE_M_BACKENDS = ("dequant", "cutlass_mixed", "cutlass_upcast")


def resolve_large_m_backend(choice: str, group_size: Optional[int], bits: int = 4, zero_point: bool = False) -> str:
    """"auto" -> "cutlass_mixed" when the current CUDA device is SM90 and `group_size` is one the mixed-input
    kernel takes; "cutlass_upcast" on an SM80-SM89 device for symmetric per-channel int8 (W8A16); else "dequant".
    Any other value is returned as given (checked by the constructor)."""
    if choice != "auto":
        return choice
    if not torch.cuda.is_available():
        return "dequant"
    if torch.cuda.get_device_capability() == (9, 0):
        return "cutlass_mixed" if group_size is None or group_size in MIXED_GROUP_SIZES else "dequant"
    dev = torch.device("cuda", torch.cuda.current_device())
    return "cutlass_upcast" if upcast_usable(dev) and (bits, group_size, zero_point) == (8, None, False) else "dequant"


def weight_only_unservable_reason(in_features: int, out_features: int, group_size: Optional[int] = None) -> Optional[str]:
    """Why `WeightOnlyLinear` cannot hold a layer of this shape (kernel tile alignment, whole groups), or None."""
    why = _layout_reason(out_features, in_features)
    if why is None and group_size is not None and in_features % group_size:
        why = f"in_features={in_features} is not a multiple of group_size={group_size}"
    return why


#: What forward reads, from the buffer dict (_buffers.BufferReader says why).
_STATE = BufferReader("qweight", "scales", "zeros", "bias", "perm", "qweight_mixed", "scales_mixed", "zeros_mixed",
                      "qweight_upcast", "scales_upcast")


class WeightOnlyLinear(QuantizedBuffers):
    """int4 / int8 weights (group-wise or per channel, symmetric or with zero points) x fp16/bf16
    activations; see the module docstring."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, bits: int = 4,
                 group_size: Optional[int] = 128, zero_point: bool = False, act_order: bool = False,
                 dtype: torch.dtype = torch.bfloat16, device=None, large_m_backend: str = "dequant"):
        """An empty layer (zero weight, unit scales) with every buffer shaped and typed as the
        constructors fill it, ready for `load_state_dict`. `dtype`: the scales', bias' and output dtype.
        `large_m_backend`: "dequant" or "cutlass_mixed" (module docstring; adds the mixed-layout copy)."""
        super().__init__()
        for name, v in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InvalidArgumentError(name, f"must be a positive int, got {v!r}")
        if bits not in BITS:
            raise InvalidArgumentError("bits", f"must be one of {BITS}, got {bits!r}")
        if group_size is not None and group_size not in GROUP_SIZES:
            raise InvalidArgumentError("group_size", f"must be None (per channel) or one of {GROUP_SIZES}, got {group_size!r}")
        why = weight_only_unservable_reason(in_features, out_features, group_size)
        if why is not None:
            raise InvalidArgumentError("out_features" if why.startswith("out_") else "in_features", why)
        if dtype not in _HALF:
            raise InvalidArgumentError("dtype", f"must be torch.bfloat16 or torch.float16, got {dtype}")
        if large_m_backend not in LARGE_M_BACKENDS:
            raise InvalidArgumentError("large_m_backend", f"must be one of {LARGE_M_BACKENDS}, got {large_m_backend!r}")
        if large_m_backend == "cutlass_mixed" and group_size is not None and group_size not in MIXED_GROUP_SIZES:
            raise InvalidArgumentError("group_size", f"large_m_backend='cutlass_mixed' takes group sizes "
                                                     f"{MIXED_GROUP_SIZES} or per channel, got {group_size}")
        if large_m_backend == "cutlass_upcast" and (bits, group_size, zero_point) != (8, None, False):
            raise InvalidArgumentError("large_m_backend", "'cutlass_upcast' takes symmetric per-channel int8 weights "
                                                          "(bits=8, group_size=None, zero_point=False)")
        self.large_m_backend = large_m_backend
        self.in_features, self.out_features, self.dtype = int(in_features), int(out_features), dtype
        self.bits, self.group_size, self.zero_point, self.act_order = bits, group_size, bool(zero_point), bool(act_order)
        n, k = self.out_features, self.in_features
        groups = k // (group_size or k)
        word = 0 if zero_point else _SYM_ZERO_WORD[bits]
        self.register_buffer("qweight", torch.full((n // 32, k * bits), word, dtype=torch.int32, device=device))
        self.register_buffer("scales", torch.ones(groups, n, dtype=dtype, device=device))
        self.register_buffer("zeros", torch.zeros(groups, n, dtype=dtype, device=device) if zero_point else None)
        self.register_buffer("perm", torch.arange(k, device=device) if act_order else None)
        self.register_buffer("bias", torch.zeros(n, dtype=dtype, device=device) if bias else None)
        mixed = large_m_backend == "cutlass_mixed"
        # a zero weight in the mixed layout is all-zero words (signed q = 0, or q = z = 0)
        self.register_buffer("qweight_mixed", torch.zeros(k // 16, n * bits // 2, dtype=torch.int32, device=device)
                             if mixed else None)
        self.register_buffer("scales_mixed", torch.ones(groups, n, dtype=dtype, device=device) if mixed else None)
        self.register_buffer("zeros_mixed", torch.zeros(groups, n, dtype=dtype, device=device)
                             if mixed and zero_point else None)
        upcast = large_m_backend == "cutlass_upcast"  # layout "cutlass_upcast_sm80_v1": plain (N, K) int8 q
        self.register_buffer("qweight_upcast", torch.zeros(n, k, dtype=torch.int8, device=device) if upcast else None)
        self.register_buffer("scales_upcast", torch.ones(1, n, dtype=dtype, device=device) if upcast else None)

    # ---------------------------------------------------------------------------- constructors
    def _fill(self, packed: PackedWeight, bias: Optional[torch.Tensor]) -> "WeightOnlyLinear":
        dev = self.qweight.device
        with torch.no_grad():
            self.qweight.copy_(packed.qweight.to(dev))
            self.scales.copy_(packed.scales.to(dev))  # same dtype by construction: no rounding
            if self.zeros is not None:
                self.zeros.copy_(packed.zeros.to(dev))
            if self.perm is not None:
                self.perm.copy_(packed.perm.to(dev))
            if self.bias is not None:
                self.bias.copy_(bias.detach().to(device=dev, dtype=self.dtype))
            if self.qweight_upcast is not None:  # the same weight, exactly, in the SM80 upcast layout
                upcast = prepack_upcast(unpack(packed))
                self.qweight_upcast.copy_(upcast.qweight.to(dev))
                self.scales_upcast.copy_(upcast.scales.to(dev))
            if self.qweight_mixed is not None:  # the same weight, exactly, in the mixed-input layout
                mixed = prepack_mixed(unpack(packed))
                self.qweight_mixed.copy_(mixed.qweight.to(dev))
                self.scales_mixed.copy_(mixed.scales.to(dev))
                if self.zeros_mixed is not None:
                    self.zeros_mixed.copy_(mixed.zeros.to(dev))
        return self

    @classmethod
    def from_packed(cls, packed: PackedWeight, bias: Optional[torch.Tensor] = None, *,
                    large_m_backend: str = "dequant") -> "WeightOnlyLinear":
        """A layer holding `packed` (its scale dtype becomes the layer's dtype) and `bias`."""
        if not isinstance(packed, PackedWeight):
            raise InvalidArgumentError("packed", f"must be a PackedWeight, got {type(packed).__name__}")
        if packed.layout != LAYOUT:
            raise InvalidArgumentError("packed", f"layout must be {LAYOUT!r}, got {packed.layout!r}")
        if bias is not None and (not isinstance(bias, torch.Tensor) or tuple(bias.shape) != (packed.n,)):
            raise InvalidArgumentError("bias", f"must be a ({packed.n},) tensor")
        layer = cls(packed.k, packed.n, bias is not None, bits=packed.bits, group_size=packed.group_size,
                    zero_point=packed.has_zero, act_order=packed.perm is not None, dtype=packed.scale_dtype,
                    device=packed.qweight.device, large_m_backend=large_m_backend)
        return layer._fill(packed, bias)

    @classmethod
    def from_float(cls, linear: nn.Linear, bits: int = 4, group_size: Optional[int] = 128,
                   zero_point: bool = False, *, large_m_backend: str = "auto") -> "WeightOnlyLinear":
        """Quantize `linear` (on whatever device it is) with `quant.quantize_weight_only`; scales in the
        layer's dtype (the float layer's if 16-bit, else bfloat16). `large_m_backend`: module docstring. A `linear`
        on the meta device gives the empty layer on meta (a skeleton for `load_state_dict(state, assign=True)`)."""
        if not isinstance(linear, nn.Linear):
            raise InvalidArgumentError("linear", f"must be a torch.nn.Linear, got {type(linear).__name__}")
        w = linear.weight.detach()
        dtype = layer_dtype(w)
        # built first: it rejects shapes the kernel cannot serve before any quantization work
        layer = cls(linear.in_features, linear.out_features, linear.bias is not None, bits=bits,
                    group_size=group_size, zero_point=zero_point, dtype=dtype, device=w.device,
                    large_m_backend=resolve_large_m_backend(large_m_backend, group_size, bits, zero_point))
        if w.is_meta:  # a skeleton for a quantized checkpoint: load_state_dict(..., assign=True) fills it
            return layer
        wq = quantize_weight_only(w, bits, group_size, zero_point=zero_point, scale_dtype=dtype)
        return layer._fill(prepack(wq), linear.bias)

    @classmethod
    def from_gptq(cls, qweight: torch.Tensor, qzeros: torch.Tensor, scales: torch.Tensor,
                  g_idx: Optional[torch.Tensor] = None, bias: Optional[torch.Tensor] = None, bits: int = 4,
                  checkpoint_format: str = "gptq") -> "WeightOnlyLinear":
        """A GPTQ checkpoint's layer (see `quant.from_gptq`); act-order g_idx becomes `perm`. Built on
        qweight's device, in the scales' dtype."""
        wq = from_gptq(qweight, qzeros, scales, g_idx, bits=bits, checkpoint_format=checkpoint_format)
        return cls.from_packed(prepack(wq, device=qweight.device), bias)

    @classmethod
    def from_awq(cls, qweight: torch.Tensor, qzeros: torch.Tensor, scales: torch.Tensor,
                 bias: Optional[torch.Tensor] = None) -> "WeightOnlyLinear":
        """An AWQ (GEMM format) checkpoint's layer (see `quant.from_awq`), built on qweight's device."""
        wq = from_awq(qweight, qzeros, scales)
        return cls.from_packed(prepack(wq, device=qweight.device), bias)

    # ---------------------------------------------------------------------------- checkpoints
    #: The large-M copies, each made from the packed weight by `_fill`'s rule.
    _COPIES = {"qweight_mixed": ("qweight_mixed", "scales_mixed", "zeros_mixed"),
               "qweight_upcast": ("qweight_upcast", "scales_upcast")}

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """A checkpoint of this format loads whatever large-M copy the layer that wrote it kept ("auto" resolves by
        the GPU at hand, so a model quantized on another machine differs): a copy this layer keeps and the
        checkpoint lacks is made from the packed weight it carries, as `_fill` makes it; a copy this layer does not
        keep is dropped. (`load_state_dict` hands each module its own copy of the dict.)"""
        for head, names in self._COPIES.items():
            if getattr(self, head) is None:
                for name in names:
                    state_dict.pop(prefix + name, None)
            elif prefix + head not in state_dict and prefix + "qweight" in state_dict:
                state_dict.update({prefix + k: v for k, v in self._copy_from(state_dict, prefix, head).items()})
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def _copy_from(self, state_dict, prefix: str, head: str) -> dict:
        """{buffer name: tensor} of copy `head` made from the checkpoint's packed weight."""
        get = lambda name: state_dict.get(prefix + name)  # noqa: E731
        packed = PackedWeight(get("qweight"), get("scales"), get("zeros") if self.zero_point else None,
                              get("perm") if self.act_order else None, LAYOUT, self.bits, self.group_size,
                              self.out_features, self.in_features)
        with torch.no_grad():
            if head == "qweight_mixed":
                mixed = prepack_mixed(unpack(packed))
                made = {"qweight_mixed": mixed.qweight, "scales_mixed": mixed.scales}
                if self.zero_point:
                    made["zeros_mixed"] = mixed.zeros
                return made
            upcast = prepack_upcast(unpack(packed))
            return {"qweight_upcast": upcast.qweight, "scales_upcast": upcast.scales}

    # ---------------------------------------------------------------------------- use
    @property
    def packed(self) -> PackedWeight:
        """The buffers as a PackedWeight (no copy)."""
        return PackedWeight(self.qweight, self.scales, self.zeros, self.perm, LAYOUT, self.bits, self.group_size,
                            self.out_features, self.in_features)

    @property
    def packed_mixed(self) -> Optional[PackedWeight]:
        """The mixed-input copy as a PackedWeight (no copy), or None without large_m_backend="cutlass_mixed"
        (`ops.weight_only_backend(m, layer.packed, layer.packed_mixed)` says which path a call takes)."""
        if self.qweight_mixed is None:
            return None
        return PackedWeight(self.qweight_mixed, self.scales_mixed, self.zeros_mixed, self.perm, LAYOUT_MIXED,
                            self.bits, self.group_size, self.out_features, self.in_features)

    @property
    def packed_upcast(self) -> Optional[PackedWeight]:
        """The SM80 upcast copy as a PackedWeight (no copy), or None without large_m_backend="cutlass_upcast"."""
        if self.qweight_upcast is None:
            return None
        return PackedWeight(self.qweight_upcast, self.scales_upcast, None, self.perm, LAYOUT_UPCAST, 8, None,
                            self.out_features, self.in_features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (..., in_features) -> (..., out_features) in x's dtype: one `weight_only_mm` call (on the
        mixed-input copy from M = ops.weight_only.mixed_from_m(bits, N, K) on CUDA when the layer has one; one
        `weight_only_layer` op when traced)."""
        qweight, scales, zeros, bias, perm, qweight_mixed, scales_mixed, zeros_mixed, qweight_upcast, scales_upcast = \
            _STATE(self)
        if x.shape[-1] > 1 and x.stride(-1) != 1:  # the kernels read unit-stride rows; F.linear takes any strides
            x = x.contiguous()
        # the copy this many rows take, chosen when the call runs (traced: one op; ops/wo_layer.py)
        return weight_only_layer(x, qweight, scales, zeros, bias, perm, qweight_mixed, scales_mixed, zeros_mixed,
                                 qweight_upcast, scales_upcast, self.bits, self.group_size, self.out_features,
                                 self.dtype)

    def extra_repr(self) -> str:
        g = "per_channel" if self.group_size is None else self.group_size
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"bits={self.bits}, group_size={g}, zero_point={self.zero_point}, act_order={self.act_order}, "
                f"dtype={self.dtype}, layout={LAYOUT!r}"
                + ("" if self.qweight_mixed is None and self.qweight_upcast is None
                   else f", large_m_backend={self.large_m_backend!r}"))
