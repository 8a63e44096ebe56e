"""W8A8 linear layers: `Int8Linear` and `Fp8Linear`, drop-in replacements of `nn.Linear`.

Weights are quantized once, symmetric per output channel (`cutlass_gemm.quant.quantize_linear`, the one
weight quantizer of the library; these layers hold its result in buffers). Activations are quantized on
every call by the kernels of `cutlass_gemm.ops`, by scheme (`act`):

    Int8Linear: "dynamic" (per-token symmetric), "dynamic_asym" (per-token with zero points),
                "dynamic_per_tensor", "static" (calibrated per-tensor), "static_asym" (with zero point)
    Fp8Linear:  "dynamic" (per-token), "dynamic_per_tensor", "static" (calibrated per-tensor)

All state lives in buffers (`weight`, `weight_scale`, `bias`, `input_scale`, `input_zero_point`,
`azp_adj`), so `.to(...)`, `state_dict()` and `load_state_dict()` behave as for `nn.Linear`. The
output dtype is the layer's `dtype` (bf16 or fp16; a model cast with `.half()`/`.bfloat16()` moves it
along, a cast to float32 does not, because the kernels write half precision), cast to the input's
dtype when that differs. Scales stay float32 whatever the cast: the kernels read float32.
"""
from __future__ import annotations

from typing import Iterable, Optional, Union

import torch
from torch import nn

from ..errors import InvalidArgumentError
from ..ops import w8a8_linear
from ..quant import Calibrator, quantize_linear

_HALF = (torch.bfloat16, torch.float16)


class _W8A8Linear(nn.Module):
    QTYPE: torch.dtype = torch.int8
    ACTS: tuple = ()

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *, act: str = "dynamic",
                 dtype: torch.dtype = torch.bfloat16, device=None):
        super().__init__()
        if act not in self.ACTS:
            raise InvalidArgumentError("act", f"{type(self).__name__} takes one of {self.ACTS}, got {act!r}")
        if dtype not in _HALF:
            raise InvalidArgumentError("dtype", f"must be torch.bfloat16 or torch.float16 (the output dtype), got {dtype}")
        self.in_features, self.out_features, self.act, self.dtype = int(in_features), int(out_features), act, dtype
        n, k = self.out_features, self.in_features
        self.register_buffer("weight", torch.zeros(n, k, dtype=torch.int8, device=device).to(self.QTYPE))
        self.register_buffer("weight_scale", torch.ones(1, n, dtype=torch.float32, device=device))
        self.register_buffer("bias", torch.zeros(n, dtype=dtype, device=device) if bias else None)
        if act.startswith("static"):
            self.register_buffer("input_scale", torch.ones(1, dtype=torch.float32, device=device))
        else:
            self.input_scale = None
        if act == "static_asym":
            self.register_buffer("input_zero_point", torch.zeros(1, dtype=torch.int32, device=device))
        else:
            self.input_zero_point = None
        if act.endswith("asym"):
            self.register_buffer("azp_adj", torch.zeros(1, n, dtype=torch.int32, device=device))
        else:
            self.azp_adj = None

    @classmethod
    def from_float(cls, linear: nn.Linear, act: str = "dynamic",
                   calibration_data: Optional[Iterable[torch.Tensor]] = None,
                   calibrator: Union[str, Calibrator] = "max") -> "_W8A8Linear":
        """Quantize `linear` (on whatever device it is). Static schemes need `calibration_data` (batches
        (..., in_features)) or an already-observed `calibrator` (see `cutlass_gemm.nn.calibrate`)."""
        if not isinstance(linear, nn.Linear):
            raise InvalidArgumentError("linear", f"must be a torch.nn.Linear, got {type(linear).__name__}")
        if act not in cls.ACTS:
            raise InvalidArgumentError("act", f"{cls.__name__} takes one of {cls.ACTS}, got {act!r}")
        static = act.startswith("static")
        if static and calibration_data is None and isinstance(calibrator, Calibrator):
            calibration_data = []  # the calibrator has observed the layer's inputs already
        w = linear.weight.detach()
        ql = quantize_linear(w, None if linear.bias is None else linear.bias.detach(), calibration_data,
                             dtype=cls.QTYPE, act_symmetric=not act.endswith("asym"),
                             act_scales="static" if static else "dynamic", calibrator=calibrator)
        dtype = w.dtype if w.dtype in _HALF else torch.bfloat16
        layer = cls(linear.in_features, linear.out_features, linear.bias is not None, act=act, dtype=dtype,
                    device=w.device)
        with torch.no_grad():
            layer.weight.copy_(ql.weight_q)
            layer.weight_scale.copy_(ql.scale_b.reshape(1, -1))
            if layer.bias is not None:
                layer.bias.copy_(linear.bias.detach().to(dtype))
            if static:
                layer.input_scale.copy_(ql.scale_a.reshape(1))
            if act == "static_asym":
                layer.input_zero_point.copy_(ql.azp.reshape(1))
            if layer.azp_adj is not None:
                layer.azp_adj.copy_(ql.azp_adj.reshape(1, -1))
        return layer

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        act = "static" if self.act.startswith("static") else self.act
        y = w8a8_linear(x, self.weight, self.weight_scale, self.bias, act=act, input_scale=self.input_scale,
                        input_zero_point=self.input_zero_point, azp_adj=self.azp_adj, out_dtype=self.dtype)
        return y if y.dtype == x.dtype else y.to(x.dtype)

    def _apply(self, fn, recurse=True):
        # Device moves apply to every buffer; a dtype cast reaches only the bias (and the output dtype),
        # and only to half precision: weights are int8/fp8 and the kernels read float32 scales.
        probe = fn(torch.zeros((), dtype=torch.float32, device=self.weight_scale.device))
        cast = probe.dtype if probe.dtype in _HALF else None
        for name, buf in self._buffers.items():
            if buf is not None:
                self._buffers[name] = buf.to(device=probe.device, dtype=cast if (name == "bias" and cast) else None)
        if cast is not None:
            self.dtype = cast
        return self

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"act={self.act!r}, weight={self.QTYPE}, out_dtype={self.dtype}")


class Int8Linear(_W8A8Linear):
    """int8 weights (per-channel) x int8 activations; see the module docstring for `act`."""
    QTYPE = torch.int8
    ACTS = ("dynamic", "dynamic_asym", "dynamic_per_tensor", "static", "static_asym")


class Fp8Linear(_W8A8Linear):
    """float8_e4m3fn weights (per-channel) x fp8 activations; see the module docstring for `act`."""
    QTYPE = torch.float8_e4m3fn
    ACTS = ("dynamic", "dynamic_per_tensor", "static")
