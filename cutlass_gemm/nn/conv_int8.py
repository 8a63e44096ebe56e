"""`Int8Conv2d`: a W8A8 drop-in for `nn.Conv2d` of any kernel size, stride, padding and dilation (groups 1).

    layer = Int8Conv2d.from_float(conv, act="dynamic", activation="relu")   # conv + ReLU in one kernel
    y = layer(x)                                                           # x (N, Ci, H, W), NCHW or channels_last

Two kernels serve it, chosen from the conv's parameters once, at construction:
- a 1x1 / stride-1 / unpadded / undilated conv is a GEMM over pixel rows: the child `linear` is an
  `Int8Linear` over (Co, Ci) and forward runs it on the rows (any `act` of Int8Linear, per-pixel "dynamic",
  every epilogue activation; state `linear.*`), as before this layer served more;
- any other conv runs the int8 implicit GEMM (ops/conv_igemm.py; SM90, and SM80 kernels on 8.x since session 57):
  the child `linear` is an `Int8Linear` over (Co, Kh*Kw*Ci) whose weight rows are the filter in KRSC order — exactly
  the (Co, Kh, Kw, Ci) memory the kernel reads, so forward views it with no copy. `act` is per tensor there ("dynamic" and
  "dynamic_per_tensor": one scale computed on the device per call; "static": the calibrated scale),
  `activation` None / "relu" / "relu6". Static calibration observes the conv's input (its absmax is the
  im2col rows' absmax; `nn.calibrate` hooks convs too).
Weights are per output channel over Ci*Kh*Kw, by the library's one weight quantizer (`Int8Linear.from_float`).
In an int8 chain (nn/chain.py `chain_int8`) a layer on the implicit GEMM may also give its output as an
`Int8ConvActivation` (int8 NHWC + scale) quantized in its epilogue (`set_int8_output`) and take one as its input
(no quantization);
a 1x1 layer joins a chain on the implicit GEMM (`use_implicit_gemm`: the same weight memory). A link reads the next
layer's calibrated scale at every call (it follows `.to()` and `load_state_dict`); it is not in the state_dict:
`chain_int8` makes the links again on a freshly built model.
Forward reads no tensor value on the host (torch.compile(fullgraph=True), CUDA graphs). Unservable
parameters raise typed errors at construction: `UnsupportedConvError` naming kernel_size / stride / padding /
dilation / groups / act / activation, `InvalidArgumentError` naming in_channels (1x1: Ci % 16, the GEMM's
16-byte rows; k x k: Ci % 64, a K tile within one filter tap; pad the channels) or out_channels (Co % 8). `int8_conv_unservable_reason` says why
without raising (quantize_model's report).
"""
from __future__ import annotations

from typing import Iterable, Optional, Tuple, Union

import torch
import torch.nn.functional as F
from torch import nn

from ..errors import InvalidArgumentError, UnsupportedConvError
from ..ops.conv import IGEMM_ACTS, Int8ConvActivation, Pair, _pair, conv_padding, igemm_forward, \
    conv_unsupported_reason, from_rows, to_rows
from ..ops.conv_igemm import igemm_unsupported_reason
from ..quant import Calibrator
from ._buffers import OnLinearChild
from .linear import Int8Linear, unservable_reason

_LINEAR_NAMES = {"in_features": "in_channels", "out_features": "out_channels"}


def _conv_words(why: Optional[str]) -> Optional[str]:
    if why is not None:
        for linear_word, conv_word in _LINEAR_NAMES.items():
            why = why.replace(linear_word, conv_word)
    return why


def _params(kernel_size: Pair, stride: Pair, padding: Union[Pair, str], dilation: Pair,
            groups: int) -> Tuple[Tuple[int, int], Tuple[int, int], Tuple[int, int], Tuple[int, int], bool]:
    """(kernel, stride, padding, dilation, is_gemm): normalised pairs; is_gemm for a 1x1 GEMM conv."""
    is_gemm = conv_unsupported_reason(kernel_size, stride, padding, dilation, groups) is None
    ks, st, dil = _pair(kernel_size, "kernel_size"), _pair(stride, "stride"), _pair(dilation, "dilation")
    return ks, st, conv_padding(padding, ks, st, dil), dil, is_gemm


def int8_conv_unservable_reason(conv: nn.Conv2d, act: Optional[str] = None) -> Optional[str]:
    """Why `conv` cannot become an `Int8Conv2d` (with activation scheme `act`, if given), or None."""
    try:
        ks, st, pad, dil, is_gemm = _params(conv.kernel_size, conv.stride, conv.padding, conv.dilation, conv.groups)
    except InvalidArgumentError as e:
        return str(e)
    if conv.padding_mode != "zeros":
        return f"padding_mode={conv.padding_mode!r}: only zero padding is served"
    if is_gemm:
        return _conv_words(unservable_reason(conv.in_channels, conv.out_channels))
    why = igemm_unsupported_reason(ks, st, pad, dil, conv.groups, conv.in_channels, conv.out_channels)
    if why is not None:
        return why[1]
    if act is not None and act not in IGEMM_ACTS:
        return (f"act={act!r}: k x k / strided convolutions take per-tensor activations {IGEMM_ACTS} "
                f"(schemes w8a8-int8, w8a8-int8-static)")
    return None


class Int8Conv2d(OnLinearChild):
    """int8 weights (per output channel) x int8 activations, conv + bias + activation in one kernel (see the
    module docstring for `act` and `activation` by kernel kind)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Pair = 1, stride: Pair = 1,
                 padding: Union[Pair, str] = 0, dilation: Pair = 1, groups: int = 1, bias: bool = True, *,
                 act: str = "dynamic", dtype: torch.dtype = torch.bfloat16, device=None,
                 activation: Optional[str] = None):
        """An empty layer (zero weight, unit scales) shaped as `from_float` fills it, for `load_state_dict`."""
        super().__init__()
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise InvalidArgumentError(name, f"must be a positive int, got {v!r}")
        ks, st, pad, dil, is_gemm = _params(kernel_size, stride, padding, dilation, groups)
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size, self.stride, self.padding, self.dilation, self.groups = ks, st, pad, dil, groups
        self.implicit_gemm = not is_gemm
        k = in_channels
        if self.implicit_gemm:
            why = igemm_unsupported_reason(ks, st, pad, dil, groups, in_channels, out_channels)
            if why is not None:
                arg, msg = why
                raise InvalidArgumentError(arg, msg) if arg.endswith("channels") else UnsupportedConvError(arg, msg)
            if act not in IGEMM_ACTS:
                raise UnsupportedConvError("act", f"k x k / strided convolutions take act in {IGEMM_ACTS}, got {act!r}")
            if activation not in (None, "relu", "relu6"):
                raise UnsupportedConvError("activation", f"k x k / strided convolutions fuse None, 'relu' or "
                                                         f"'relu6', got {activation!r}")
            act = "static" if act == "static" else "dynamic_per_tensor"
            k = in_channels * ks[0] * ks[1]
        self._act = act
        self._int8_out = False  # set_int8_output: the scale and bias tensors are buffers (they follow .to())
        self._int8_activation: Optional[str] = None
        try:
            self.linear = Int8Linear(k, out_channels, bias, act=act, dtype=dtype, device=device, activation=activation)
        except InvalidArgumentError as e:
            raise InvalidArgumentError(_LINEAR_NAMES.get(e.argument, e.argument),
                                       _conv_words(str(e).split(": ", 1)[-1])) from None

    @property
    def act(self) -> str:
        return self.linear.act

    @property
    def activation(self) -> Optional[str]:
        return self.linear.activation

    @classmethod
    def from_float(cls, conv: nn.Conv2d, act: str = "dynamic",
                   calibration_data: Optional[Iterable[torch.Tensor]] = None,
                   calibrator: Union[str, Calibrator] = "max", activation: Optional[str] = None) -> "Int8Conv2d":
        """Quantize `conv` (on whatever device it is). Static schemes take `calibration_data` (conv inputs
        (N, Ci, H, W)) or an observed `calibrator`; `activation` fuses the activation that follows the conv."""
        if not isinstance(conv, nn.Conv2d):
            raise InvalidArgumentError("conv", f"must be a torch.nn.Conv2d, got {type(conv).__name__}")
        if conv.padding_mode != "zeros":
            raise UnsupportedConvError("padding", f"padding_mode={conv.padding_mode!r}: only zero padding is served")
        w = conv.weight.detach()
        layer = cls(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, conv.padding, conv.dilation,
                    conv.groups, conv.bias is not None, act=act, device="meta", activation=activation)
        co = conv.out_channels
        # KRSC rows: the flattened weight's memory is the (Co, Kh, Kw, Ci) filter the implicit GEMM reads
        w2 = w.permute(0, 2, 3, 1).reshape(co, -1) if layer.implicit_gemm else w.reshape(co, conv.in_channels)
        lin = nn.Linear(w2.shape[1], co, bias=conv.bias is not None, device="meta")
        lin.weight = nn.Parameter(w2, requires_grad=False)
        if conv.bias is not None:
            lin.bias = nn.Parameter(conv.bias.detach(), requires_grad=False)
        rows = None if calibration_data is None else [layer._calibration_rows(x.detach()) for x in calibration_data]
        layer.linear = Int8Linear.from_float(lin, act=layer._act, calibration_data=rows, calibrator=calibrator,
                                             activation=activation)
        return layer

    def _calibration_rows(self, x: torch.Tensor) -> torch.Tensor:
        """What the kernel multiplies: the pixel rows (1x1) or the im2col rows (k x k), (rows, K)."""
        if not self.implicit_gemm:
            return to_rows(x, self.in_channels).rows
        x4 = x.unsqueeze(0) if x.dim() == 3 else x
        cols = F.unfold(x4.float(), self.kernel_size, self.dilation, self.padding, self.stride)  # (N, K, L)
        return cols.transpose(1, 2).reshape(-1, cols.shape[1])

    @property
    def int8_output(self) -> bool:
        """Whether forward returns an `Int8ConvActivation` (set by `set_int8_output`, e.g. by `chain_int8`)."""
        return self._int8_out

    def use_implicit_gemm(self) -> None:
        """Run this 1x1 layer on the implicit GEMM (a chain's int8 input and output need it). Its weight rows
        (Co, Ci) are already the KRSC filter; the per-tensor schemes only (static or dynamic per tensor)."""
        if self.implicit_gemm:
            return
        why = igemm_unsupported_reason(self.kernel_size, self.stride, self.padding, self.dilation, self.groups,
                                       self.in_channels, self.out_channels)
        if why is not None:
            raise InvalidArgumentError(why[0], why[1])
        if self.linear.act not in ("static", "dynamic_per_tensor"):
            raise UnsupportedConvError("act", f"the implicit GEMM takes per-tensor activations, this layer's act is "
                                              f"{self.linear.act!r}")
        self.implicit_gemm = True

    def set_int8_output(self, scale: Union[None, torch.Tensor, "Int8Conv2d"], activation: Optional[str] = None) -> None:
        """Quantize the output in the epilogue with a per-tensor scale and fuse `activation` (None / "relu" /
        "relu6") before it; forward then returns an `Int8ConvActivation`. `scale`: the next `Int8Conv2d` (static:
        its calibrated input scale, read at every call, so the link follows that layer's `.to()` and
        `load_state_dict`), or a one-element float tensor kept by reference (its current value is used at every
        call). `None` restores the float output."""
        if scale is None:
            self._int8_out, self._int8_activation = False, None
            self.__dict__.pop("_chain_source", None)
            self.__dict__.pop("_chain_cache", None)
            return
        if not self.implicit_gemm:
            raise UnsupportedConvError("kernel_size", "an int8 output is made by the implicit GEMM: call "
                                                      "use_implicit_gemm() first")
        if self.out_channels % 16:
            raise InvalidArgumentError("out_channels", f"an int8 output needs Co % 16 == 0, got {self.out_channels}")
        if activation not in (None, "relu", "relu6"):
            raise UnsupportedConvError("activation", f"must be None, 'relu' or 'relu6', got {activation!r}")
        if isinstance(scale, Int8Conv2d):
            if scale.act != "static":
                raise InvalidArgumentError("scale", f"the next layer's activations are {scale.act!r}: only a static "
                                                    f"(calibrated) input scale can be quantized to")
        elif not isinstance(scale, torch.Tensor) or scale.numel() != 1 or scale.dtype != torch.float32:
            raise InvalidArgumentError("scale", "must be the next Int8Conv2d or a one-element float32 tensor")
        # Kept out of the module tree (a plain attribute, not a child module or buffer): the next layer stays where
        # the model has it, and the link is not state (chain_int8 makes it again on a freshly loaded model).
        self.__dict__["_chain_source"] = scale
        self.__dict__.pop("_chain_cache", None)
        self._int8_out = True
        self._int8_activation = activation

    def _chain_tensors(self) -> Tuple[torch.Tensor, torch.Tensor, Optional[torch.Tensor]]:
        """(output scale, its float32 reciprocal, the bias in float32 or None) for an int8 output: the scale read
        from its source now, the derived two remade whenever the scale or the bias tensor changed (replaced, or
        written in place: a tensor's version counter moves on every in-place write, `load_state_dict` included)."""
        src = self.__dict__["_chain_source"]
        s = src._modules["linear"]._buffers["input_scale"] if isinstance(src, Int8Conv2d) else src
        b = self._modules["linear"]._buffers["bias"]
        if torch.compiler.is_compiling():
            return s, torch.reciprocal(s.float()).reshape(1), None if b is None else b.float()
        bv = None if b is None else b._version
        c = self.__dict__.get("_chain_cache")
        if c is None or c[0] is not s or c[1] != s._version or c[2] is not b or c[3] != bv:
            c = (s, s._version, b, bv, torch.reciprocal(s.float()).reshape(1),
                 None if b is None else b.float().contiguous())
            self.__dict__["_chain_cache"] = c
        return s, c[4], c[5]

    def _krsc(self, lin: Int8Linear) -> Tuple[torch.Tensor, torch.Tensor]:
        """The child's weight as the (Co, Kh, Kw, Ci) filter and its scale as (Co,): views made once and kept
        while the child's buffers are the same tensors (`.to()` replaces them, `load_state_dict` copies into
        them), since each view op costs a few us of host time per call; traced calls make them afresh."""
        w, ws = lin._buffers["weight"], lin._buffers["weight_scale"]
        kh, kw = self.kernel_size
        if torch.compiler.is_compiling():
            return w.view(self.out_channels, kh, kw, self.in_channels), ws.reshape(-1)
        c = self.__dict__.get("_krsc_views")
        if c is None or c[0] is not w or c[1] is not ws:
            c = (w, ws, w.view(self.out_channels, kh, kw, self.in_channels), ws.reshape(-1))
            self.__dict__["_krsc_views"] = c
        return c[2], c[3]

    def forward(self, x: Union[torch.Tensor, Int8ConvActivation]) -> Union[torch.Tensor, Int8ConvActivation]:
        """x (N, Ci, H, W) or (Ci, H, W) -> (N, Co, P, Q) in x's dtype and memory format; an
        `Int8ConvActivation` x (a chain's) is used without quantization, and an int8-output layer returns one."""
        lin = self.linear
        if not self.implicit_gemm:
            if isinstance(x, Int8ConvActivation):
                raise InvalidArgumentError("x", "an Int8ConvActivation needs the implicit GEMM (use_implicit_gemm)")
            r = to_rows(x, self.in_channels)
            return from_rows(lin(r.rows), r)
        w, w_scale = self._krsc(lin)
        int8_out = None
        activation = lin.activation
        bufs = lin._buffers  # (Module.__getattr__ costs ~1.5 us a name: this is the eager per-call path)
        if self._int8_out:
            int8_out = self._chain_tensors()
            activation = self._int8_activation
        # The constructor checked the conv parameters and the scheme: only x is checked per call (host cost).
        y = igemm_forward(x, w, w_scale, bufs["bias"], lin.act == "static", bufs["input_scale"], activation,
                          lin.dtype, self.stride, self.padding, self.dilation, int8_out)
        if isinstance(y, Int8ConvActivation) or isinstance(x, Int8ConvActivation):
            return y
        return y if y.dtype == x.dtype else y.to(x.dtype)

    def extra_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, bias={self.linear.bias is not None}, "
                f"act={self.act!r}, kernel={'implicit_gemm' if self.implicit_gemm else 'gemm'}"
                + ("" if self.activation is None else f", activation={self.activation!r}")
                + ("" if not self._int8_out else f", int8_output=True, output_activation={self._int8_activation!r}"))


__all__ = ["Int8Conv2d", "int8_conv_unservable_reason"]
