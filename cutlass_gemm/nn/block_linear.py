"""Per-block int8 W8A8 linear layer: `Int8BlockLinear`, a drop-in for `nn.Linear`.

    layer = Int8BlockLinear.from_float(linear, block_size=128)        # or build empty + load_state_dict
    layer = Int8BlockLinear.from_float(linear, activation="silu")      # act(linear(x)) in one GEMM
    y = layer(x)                                                        # x (..., in_features)

The weight is quantized once, symmetric per output channel and per block of `block_size` (64 or 128)
input features (`quant.quantize_per_block`); the activation on every call per token and per block of the
same size (`ops.quantize_per_group`, whose (M, K / B) scales feed the GEMM as they are), then one
`cutlass_gemm::scaled_mm_blockwise_int8` call (ops/blockwise_int8.py). A block's scale follows its own
values, so an outlier input channel inflates the scale of its block only, not of the whole row as per-
token quantization does (tests/test_blockint8.py measures that).

All state lives in buffers: `weight` (N, K) int8, `weight_scale` (N, K / B) float32, `bias` (N,) in the
layer's dtype. A layer built with the same arguments (`block_size`, `bias`, `activation`) loads another's
`state_dict`. Forward reads no tensor value on the host (torch.compile(fullgraph=True), CUDA graphs).
Casts follow `_buffers.QuantizedBuffers`: the int8 weight and float32 scales never change dtype; a half
cast moves the bias and the output dtype.
"""
from __future__ import annotations

from typing import Optional

import torch
from torch import nn

from ._buffers import HALF as _HALF, WEIGHT_STATE as _STATE, QuantizedBuffers, layer_dtype, load_weight_state
from ..errors import InvalidArgumentError
from ..kernels import activations
from ..ops.block_linear import block_linear
from ..ops.blockwise_int8 import BLOCK_SIZES
from ..quant.block import quantize_per_block


def block_unservable_reason(in_features: int, out_features: int, block_size: int = 128) -> Optional[str]:
    """Why `Int8BlockLinear` cannot hold a layer of this shape (whole K blocks), or None."""
    if in_features % block_size:
        return f"in_features={in_features} is not a multiple of block_size={block_size}"
    return None


class Int8BlockLinear(QuantizedBuffers):
    """int8 weights and activations with per-block (along K) scales; see the module docstring."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, block_size: int = 128,
                 activation: Optional[str] = None, dtype: torch.dtype = torch.bfloat16, device=None):
        """An empty layer (zero weight, unit scales) with every buffer shaped and typed as `from_float` fills
        it, ready for `load_state_dict`. `dtype`: the bias' and output dtype."""
        super().__init__()
        for name, v in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InvalidArgumentError(name, f"must be a positive int, got {v!r}")
        if block_size not in BLOCK_SIZES:
            raise InvalidArgumentError("block_size", f"must be one of {BLOCK_SIZES}, got {block_size!r}")
        why = block_unservable_reason(in_features, out_features, block_size)
        if why is not None:
            raise InvalidArgumentError("in_features", why)
        if dtype not in _HALF:
            raise InvalidArgumentError("dtype", f"must be torch.bfloat16 or torch.float16, got {dtype}")
        self.activation = activations.canonical(activation)
        self.in_features, self.out_features, self.block_size, self.dtype = in_features, out_features, block_size, dtype
        n, k = out_features, in_features
        self.register_buffer("weight", torch.zeros(n, k, dtype=torch.int8, device=device))
        self.register_buffer("weight_scale", torch.ones(n, k // block_size, dtype=torch.float32, device=device))
        self.register_buffer("bias", torch.zeros(n, dtype=dtype, device=device) if bias else None)

    @classmethod
    def from_float(cls, linear: nn.Linear, block_size: int = 128, *, activation: Optional[str] = None,
                   **_ignored) -> "Int8BlockLinear":
        """Quantize `linear` (on whatever device it is); output dtype: the float layer's if 16-bit, else
        bfloat16. Extra keyword arguments (quantize_model's `act`, `calibrator`) are ignored: the scheme is
        dynamic and has no variants."""
        if not isinstance(linear, nn.Linear):
            raise InvalidArgumentError("linear", f"must be a torch.nn.Linear, got {type(linear).__name__}")
        w = linear.weight.detach()
        dtype = layer_dtype(w)
        layer = cls(linear.in_features, linear.out_features, linear.bias is not None, block_size=block_size,
                    activation=activation, dtype=dtype, device=w.device)
        bq = quantize_per_block(w.to(torch.float32), block_size, dtype=torch.int8)
        load_weight_state(layer, bq.q, bq.scale, linear.bias)
        return layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x (..., in_features) -> (..., out_features) in x's dtype: per-group int8 quantization of x, then
        one per-block GEMM (activation fused)."""
        if not isinstance(x, torch.Tensor) or x.dim() < 1 or x.shape[-1] != self.in_features:
            got = tuple(x.shape) if isinstance(x, torch.Tensor) else type(x).__name__
            raise InvalidArgumentError("x", f"must be (..., {self.in_features}), got {got}")
        # eager: quantization + GEMV (M <= 16) or the tiled GEMM from one C++ call; traced: one op (ops/block_linear.py)
        w, ws, bias = _STATE(self)
        y = block_linear(x, w, ws, bias, self.dtype, self.activation, self.block_size, False)
        return y if y.dtype == x.dtype else y.to(x.dtype)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"block_size={self.block_size}, activation={activations.public(self.activation)!r}, "
                f"dtype={self.dtype}")
