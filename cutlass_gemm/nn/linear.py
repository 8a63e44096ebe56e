"""W8A8 linear layers: `Int8Linear` and `Fp8Linear`, drop-in replacements of `nn.Linear`.

    layer = Int8Linear.from_float(linear, act="dynamic")                       # or build empty + load_state_dict
    layer = Fp8Linear.from_float(linear, act="static", calibration_data=[x1, x2])
    layer = Int8Linear.from_float(linear, activation="gelu_tanh")               # act(linear(x)) in one GEMM
    y = layer(x)                                                               # x (..., in_features)

Weights are quantized once, symmetric per output channel, by `cutlass_gemm.quant.quantize_linear` (the
one weight quantizer of the library; its frozen `QuantizedLinear` is the data these layers copy into
buffers). Activations are quantized on every call, by scheme (`act`), inside `cutlass_gemm.ops.w8a8_linear`
(one call per forward: quantization kernel + fused GEMM on CUDA, the float reference on the CPU):

    Int8Linear: "dynamic" (per-token symmetric; default), "dynamic_asym" (per-token with zero points),
                "dynamic_per_tensor", "static" (calibrated per-tensor symmetric),
                "static_asym" (calibrated per-tensor with a zero point)
    Fp8Linear:  "dynamic" (per-token; default), "dynamic_per_tensor", "static" (calibrated per-tensor)

All state lives in buffers (`weight` (N, K) int8/float8_e4m3fn, `weight_scale` (1, N) float32, `bias`
(N,) in the output dtype, and by scheme `input_scale` (1,) float32, `input_zero_point` (1,) int32,
`azp_adj` (1, N) int32 weight column sums), so `.to(device)`, `state_dict()` and `load_state_dict()`
into a layer built with the same arguments behave as for `nn.Linear`. Forward never reads a tensor
value on the host, so it runs under torch.compile(fullgraph=True) and CUDA-graph capture.

Choices where the issue is silent:
- The output dtype is the layer's `dtype` (bf16 or fp16; `from_float` takes the float layer's dtype, and
  bf16 for a float32 layer). A half-precision cast of the model (`.half()`, `.to(torch.bfloat16)`)
  moves it and the bias along; a cast to float32/float64 does not (the kernels write half precision).
  The result is returned in the input's dtype when that differs (float32 in, float32 out).
- Casts never touch the int8/fp8 weight, the zero points or the float32 scales (see `_apply`).
- A static layer built empty has input_scale 1 (and zero point 0) until a state_dict is loaded.
- `activation` (None, "relu", "relu6", "gelu_tanh", "silu") is fused into the GEMM's epilogue: the layer
  computes act(x @ W.T + b), i.e. the linear layer and the activation module after it. It is a
  constructor argument like `act` (shown by `extra_repr`), not a buffer: build the layer with the same
  `activation` before `load_state_dict`.
"""
from __future__ import annotations

from typing import Iterable, Optional, Union

import torch
from torch import nn

from ._buffers import HALF as _HALF, BufferReader, QuantizedBuffers, layer_dtype, load_weight_state
from ..errors import InvalidArgumentError
from ..kernels import activations
from ..ops import w8a8_linear
from ..ops.gemm import K_ALIGN, N_ALIGN
from ..quant import Calibrator, quantize_linear



def unservable_reason(in_features: int, out_features: int) -> Optional[str]:
    """Why the GEMM cannot serve a layer of this shape (16-byte rows of the int8/fp8 operands), or None."""
    if in_features % K_ALIGN:
        return f"in_features={in_features} is not a multiple of {K_ALIGN} (the GEMM's 16-byte rows)"
    if out_features % N_ALIGN:
        return f"out_features={out_features} is not a multiple of {N_ALIGN} (the GEMM's 16-byte rows)"
    return None


#: What forward reads, from the buffer dict (_buffers.BufferReader says why).
_STATE = BufferReader("weight", "weight_scale", "bias", "input_scale", "input_zero_point", "azp_adj")


class _W8A8Linear(QuantizedBuffers):
    QTYPE: torch.dtype = torch.int8
    ACTS: tuple = ()

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, act: str = "dynamic",
                 dtype: torch.dtype = torch.bfloat16, device=None, activation: Optional[str] = None):
        """An empty layer (zero weight, unit scales) with every buffer of scheme `act` shaped and typed as
        `from_float` fills it, ready for `load_state_dict`. `dtype`: the output (and bias) dtype."""
        super().__init__()
        for name, v in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InvalidArgumentError(name, f"must be a positive int, got {v!r}")
        why = unservable_reason(in_features, out_features)
        if why is not None:  # fail at construction, not at the first forward
            raise InvalidArgumentError("in_features" if why.startswith("in_") else "out_features", why)
        if act not in self.ACTS:
            raise InvalidArgumentError("act", f"{type(self).__name__} takes one of {self.ACTS}, got {act!r}")
        if dtype not in _HALF:
            raise InvalidArgumentError("dtype", f"must be torch.bfloat16 or torch.float16 (the output dtype), got {dtype}")
        self.activation = activations.public(activations.canonical(activation))
        self.in_features, self.out_features, self.act, self.dtype = int(in_features), int(out_features), act, dtype
        n, k = self.out_features, self.in_features
        self.register_buffer("weight", torch.zeros(n, k, dtype=torch.int8, device=device).to(self.QTYPE))
        self.register_buffer("weight_scale", torch.ones(1, n, dtype=torch.float32, device=device))
        self.register_buffer("bias", torch.zeros(n, dtype=dtype, device=device) if bias else None)
        # Buffers a scheme does not use are registered as None: absent from state_dict, skipped by .to().
        static = act.startswith("static")
        self.register_buffer("input_scale", torch.ones(1, dtype=torch.float32, device=device) if static else None)
        self.register_buffer("input_zero_point",
                             torch.zeros(1, dtype=torch.int32, device=device) if act == "static_asym" else None)
        self.register_buffer("azp_adj",
                             torch.zeros(1, n, dtype=torch.int32, device=device) if act.endswith("asym") else None)

    @classmethod
    def from_float(cls, linear: nn.Linear, act: str = "dynamic",
                   calibration_data: Optional[Iterable[torch.Tensor]] = None,
                   calibrator: Union[str, Calibrator] = "max", activation: Optional[str] = None) -> "_W8A8Linear":
        """Quantize `linear` (on whatever device it is). Static schemes need `calibration_data` (batches
        (..., in_features)) or an already-observed `calibrator` (see `cutlass_gemm.nn.calibrate`). A `linear` on
        the meta device gives the empty layer on meta, nothing quantized or calibrated: the skeleton a quantized
        checkpoint is loaded into with `load_state_dict(state, assign=True)`.
        `activation` fuses the activation that follows the layer into its GEMM."""
        if not isinstance(linear, nn.Linear):
            raise InvalidArgumentError("linear", f"must be a torch.nn.Linear, got {type(linear).__name__}")
        if act not in cls.ACTS:
            raise InvalidArgumentError("act", f"{cls.__name__} takes one of {cls.ACTS}, got {act!r}")
        activations.canonical(activation)  # before any quantization work
        static = act.startswith("static")
        if static and calibration_data is None and isinstance(calibrator, Calibrator):
            calibration_data = []  # the calibrator has observed the layer's inputs already
        w = linear.weight.detach()
        dtype = layer_dtype(w)
        # built first: it rejects shapes the GEMM cannot serve before any quantization work
        layer = cls(linear.in_features, linear.out_features, linear.bias is not None, act=act, dtype=dtype,
                    device=w.device, activation=activation)
        if w.is_meta:  # a skeleton for a quantized checkpoint: load_state_dict(..., assign=True) fills it
            return layer
        ql = quantize_linear(w, None if linear.bias is None else linear.bias.detach(), calibration_data,
                             dtype=cls.QTYPE, act_symmetric=not act.endswith("asym"),
                             act_scales="static" if static else "dynamic", calibrator=calibrator)
        load_weight_state(layer, ql.weight_q, ql.scale_b.reshape(1, -1), linear.bias)
        with torch.no_grad():
            if static:
                layer.input_scale.copy_(ql.scale_a.reshape(1))
            if act == "static_asym":
                layer.input_zero_point.copy_(ql.azp.reshape(1))
            if layer.azp_adj is not None:
                layer.azp_adj.copy_(ql.azp_adj.reshape(1, -1))
        return layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (..., in_features) bf16/fp16/fp32 -> (..., out_features) in x's dtype: one `w8a8_linear` call."""
        act = "static" if self.act.startswith("static") else self.act
        w, ws, bias, s, z, adj = _STATE(self)
        if x.shape[-1] > 1 and x.stride(-1) != 1:  # the op reads unit-stride rows; F.linear takes any strides
            x = x.contiguous()
        y = w8a8_linear(x, w, ws, bias, act=act, input_scale=s, input_zero_point=z, azp_adj=adj, out_dtype=self.dtype,
                        activation=self.activation)
        return y if y.dtype == x.dtype else y.to(x.dtype)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"act={self.act!r}, weight={self.QTYPE}, out_dtype={self.dtype}"
                + ("" if self.activation is None else f", activation={self.activation!r}"))


class Int8Linear(_W8A8Linear):
    """int8 weights (per-channel) x int8 activations; see the module docstring for `act`."""
    QTYPE = torch.int8
    ACTS = ("dynamic", "dynamic_asym", "dynamic_per_tensor", "static", "static_asym")


class Fp8Linear(_W8A8Linear):
    """float8_e4m3fn weights (per-channel) x fp8 activations; see the module docstring for `act`."""
    QTYPE = torch.float8_e4m3fn
    ACTS = ("dynamic", "dynamic_per_tensor", "static")
