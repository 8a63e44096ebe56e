"""What `.to()` / `.half()` / `.cuda()` mean for a layer whose state is quantized buffers."""
from __future__ import annotations

from operator import itemgetter
from typing import Optional

import torch
from torch import nn

HALF = (torch.bfloat16, torch.float16)


class QuantizedBuffers(nn.Module):
    """Base of the quantized layers: every tensor is a buffer, and `self.dtype` is the output dtype.

    nn.Module.to/.half()/.float() cast every floating-point tensor (float8 counts as floating point), which
    would turn an fp8 weight into fp16 and round the float32 / 16-bit scales of a quantized format. So
    `_apply` probes what `fn` does to a float32 and a bfloat16 tensor. No dtype change (a device move,
    to_empty, share_memory_): `fn` is applied to every buffer as nn.Module would. A dtype cast: the
    buffers move to the probe's device keeping their dtypes, except the bias, which follows a cast to
    half precision together with the output dtype (the kernels write bf16/fp16 only, so a cast to
    float32/float64 leaves both alone; such an input is still answered in its own dtype)."""

    dtype: torch.dtype

    def _apply(self, fn, recurse=True):
        dev = next(b.device for b in self._buffers.values() if b is not None)
        p32 = fn(torch.zeros((), dtype=torch.float32, device=dev))
        p16 = fn(torch.zeros((), dtype=torch.bfloat16, device=dev))
        if p32.dtype == torch.float32 and p16.dtype == torch.bfloat16:
            for name, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[name] = fn(buf)
            return self
        cast = p32.dtype if p32.dtype in HALF else None
        for name, buf in self._buffers.items():
            if buf is not None:
                self._buffers[name] = buf.to(device=p32.device, dtype=cast if name == "bias" else None)
        if cast is not None:
            self.dtype = cast
        return self


def layer_dtype(weight: torch.Tensor) -> torch.dtype:
    """The output dtype `from_float` gives a quantized layer: the float layer's when 16-bit, else bfloat16 (the
    kernels write bf16/fp16 only)."""
    return weight.dtype if weight.dtype in HALF else torch.bfloat16


def load_weight_state(layer: nn.Module, weight: torch.Tensor, weight_scale: torch.Tensor,
                      float_bias: Optional[torch.Tensor]) -> None:
    """Copy a quantized weight and its scale into `layer`'s buffers, and the float layer's bias (cast to the layer's
    dtype) when the layer has one; outside autograd, as `from_float` fills a layer built empty."""
    with torch.no_grad():
        layer.weight.copy_(weight)
        layer.weight_scale.copy_(weight_scale)
        if layer.bias is not None:
            layer.bias.copy_(float_bias.detach().to(layer.bias.dtype))


class OnLinearChild(nn.Module):
    """Base of the convolution layers whose quantized state lives in a child linear layer, `self.linear` (the conv is
    a GEMM over its (Kh, Kw, Ci) reduction): the output dtype and the bias are the child's, one copy of each."""

    linear: nn.Module

    @property
    def dtype(self) -> torch.dtype:
        """The output (compute) dtype: the child linear layer's."""
        return self.linear.dtype

    @property
    def bias(self):
        """The bias (None without one): the child linear layer's buffer."""
        return self.linear.bias


class BufferReader:
    """Reads a layer's named buffers in forward: `BufferReader("weight", "bias")(layer)` -> (weight, bias).

    From the module's buffer dict, because nn.Module.__getattr__ costs per buffer about as much host time as a small
    torch op, and an eager decode step is host-bound. A buffer a user re-assigned as something else (a Parameter)
    has left that dict: then every name is read as an attribute, which finds it wherever it lives."""

    def __init__(self, *names: str):
        self.names = names
        self._get = itemgetter(*names)

    def __call__(self, module: nn.Module) -> tuple:
        if not torch.compiler.is_compiling():  # Dynamo traces attribute reads, not itemgetter
            try:
                return self._get(module._buffers)
            except KeyError:
                pass
        return tuple(getattr(module, n) for n in self.names)


#: The weight, its scale and the bias, as the per-block layers' forward reads them.
WEIGHT_STATE = BufferReader("weight", "weight_scale", "bias")
