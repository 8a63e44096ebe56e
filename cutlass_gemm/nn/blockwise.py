"""`Fp8BlockLinear`: a drop-in `nn.Linear` replacement in the blockwise-scaled fp8 format (DeepSeek-V3 style).

    layer = Fp8BlockLinear.from_float(linear)                   # or build empty + load_state_dict
    layer = Fp8BlockLinear.from_float(linear, activation="silu")
    y = layer(x)                                                # x (..., in_features)

The weight is quantized once to fp8 e4m3 with one float32 scale per 128 x 128 block
(`cutlass_gemm.quant.blockwise.quantize_weight_block2d`); activations are quantized on every call, one
scale per token per 128-wide K group, by `cutlass_gemm.quantize_per_group(x, 128, float8_e4m3fn)`, whose
(M, K / 128) scale the GEMM reads as it is (no copy): row-major, or column-major from M = 512 (M % 4 == 0),
where the kernel's TMA load of it is faster (kernels/blockwise_heuristics.py SFA_MN_MIN_M); then `scaled_mm_blockwise` (the CUTLASS SM90
blockwise mainloop, bias and activation in its epilogue). CPU tensors run the references of both ops.

Buffers: `weight` (N, K) float8_e4m3fn, `weight_scale` (ceil(N / 128), K / 128) float32 (the layout of
DeepSeek-V3's `weight_scale_inv`), `bias` (N,) in the output dtype. `.to()`, `state_dict()` and
`load_state_dict()` behave as for `nn.Linear` (casts never touch the fp8 weight or its scales: see
_buffers.py). Forward reads no tensor value on the host: it runs under torch.compile(fullgraph=True) and
CUDA-graph capture. Shapes: in_features % 128 == 0 (whole scale blocks), out_features % 8 == 0.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from ._buffers import HALF as _HALF, WEIGHT_STATE as _STATE, QuantizedBuffers, layer_dtype, load_weight_state
from ..errors import InvalidArgumentError
from ..kernels import activations
from ..ops.block_linear import block_linear
from ..ops.blockwise import K_ALIGN, N_ALIGN
from ..quant.blockwise import BLOCK, quantize_weight_block2d


def blockwise_unservable_reason(in_features: int, out_features: int) -> Optional[str]:
    """Why the blockwise GEMM cannot serve a layer of this shape, or None."""
    if in_features % K_ALIGN:
        return f"in_features={in_features} is not a multiple of {K_ALIGN} (whole 128-wide scale blocks)"
    if out_features % N_ALIGN:
        return f"out_features={out_features} is not a multiple of {N_ALIGN} (the GEMM's 16-byte output rows)"
    return None


class Fp8BlockLinear(QuantizedBuffers):
    """fp8 e4m3 weight per 128 x 128 block x fp8 activations per token per 128 K (see the module docstring)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *,
                 dtype: torch.dtype = torch.bfloat16, device=None, activation: Optional[str] = None):
        """An empty layer (zero weight, unit scales) shaped as `from_float` fills it, ready for
        `load_state_dict`. `dtype`: the output (and bias) dtype, bfloat16 or float16."""
        super().__init__()
        for name, v in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InvalidArgumentError(name, f"must be a positive int, got {v!r}")
        why = blockwise_unservable_reason(in_features, out_features)
        if why is not None:  # fail at construction, not at the first forward
            raise InvalidArgumentError("in_features" if why.startswith("in_") else "out_features", why)
        if dtype not in _HALF:
            raise InvalidArgumentError("dtype", f"must be torch.bfloat16 or torch.float16 (the output dtype), got {dtype}")
        self.activation = activations.public(activations.canonical(activation))
        self.in_features, self.out_features, self.dtype = int(in_features), int(out_features), dtype
        n, k = self.out_features, self.in_features
        self.register_buffer("weight", torch.zeros(n, k, dtype=torch.float8_e4m3fn, device=device))
        self.register_buffer("weight_scale", torch.ones(-(-n // BLOCK), k // BLOCK, dtype=torch.float32,
                                                        device=device))
        self.register_buffer("bias", torch.zeros(n, dtype=dtype, device=device) if bias else None)

    @classmethod
    def from_float(cls, linear: nn.Linear, activation: Optional[str] = None) -> "Fp8BlockLinear":
        """Quantize `linear` (on whatever device it is). `activation` fuses the activation that follows the
        layer into its GEMM. The output dtype is the layer's (bfloat16 for a float32 layer)."""
        if not isinstance(linear, nn.Linear):
            raise InvalidArgumentError("linear", f"must be a torch.nn.Linear, got {type(linear).__name__}")
        activations.canonical(activation)
        w = linear.weight.detach()
        dtype = layer_dtype(w)
        layer = cls(linear.in_features, linear.out_features, linear.bias is not None, dtype=dtype, device=w.device,
                    activation=activation)
        wq = quantize_weight_block2d(w)
        load_weight_state(layer, wq.q, wq.scale, linear.bias)
        return layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (..., in_features) bf16/fp16/fp32 -> (..., out_features) in x's dtype."""
        if x.shape[-1] != self.in_features:
            raise InvalidArgumentError("x", f"last dimension must be in_features = {self.in_features}, "
                                            f"got {tuple(x.shape)}")
        # eager: quantization + GEMV (M <= 16) or the tiled GEMM from one C++ call; traced: one op (ops/block_linear.py)
        w, ws, bias = _STATE(self)
        y = block_linear(x, w, ws, bias, self.dtype, activations.canonical(self.activation), BLOCK, True)
        return y if y.dtype == x.dtype else y.to(x.dtype)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"weight=float8_e4m3fn per 128x128 block, act=fp8 per token per 128, out_dtype={self.dtype}"
                + ("" if self.activation is None else f", activation={self.activation!r}"))
