"""W8A8 int8 convolution of any kernel size, stride, padding and dilation: CUTLASS's SM90 / SM80 implicit GEMM.

    y = conv2d_int8_igemm(x_q, w_krsc, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype,
                          scale_out=None, scale_guard=None)

The op `cutlass_gemm::conv2d_int8_igemm` (torch.library, with a fake impl) takes the quantized operands in the
kernel's layouts: x_q int8 NHWC (N, H, W, Ci) contiguous, w int8 KRSC (Co, Kh, Kw, Ci) contiguous (the memory of a
channels_last (Co, Ci, Kh, Kw) weight), scale_x float32 one element (per-tensor activation scale, a device
tensor: never read on the host), w_scale float32 (Co,) or (1, Co), bias (Co,) in the output dtype or None.
It returns (N, P, Q, Co) contiguous = NHWC in `out_dtype` (bf16/fp16):

    y = act(scale_x * w_scale[co] * sum_{r,s,c} x_q[n, p*sh - ph + r*dh, q*sw - pw + s*dw, c] * w[co, r, s, c] + bias[co])

`out_dtype=torch.int8` quantizes y for the next int8 conv in the epilogue (an int8 chain, nn/chain.py):
q = saturate(rint(float32(y) * scale_out)) with `scale_out` a one-element float32 device tensor holding the
reciprocal of the output scale, bias float32, Co % 16 == 0 (16-byte int8 rows). `scale_guard` (a one-element float32
device tensor or None) makes the kernel read scale_x + 0 * scale_guard: scale_x for a finite guard, NaN for a
non-finite one (an int8 chain's first activation scale, so that a NaN input stays NaN at the chain's end).

CUDA tensors on an SM90 GPU run kernels/conv2d.py's SM90 kernel, on SM80-SM89 GPUs its SM80 kernel (since
session 57: CUTLASS 2's mainloop with a visitor epilogue; the SM of ops.gemm.kernel_sm, int8 family), the tile by
shape, built on first use, announced; CPU tensors run the float64 reference (this formula with F.conv2d); other GPUs
raise UnsupportedDeviceError. `conv2d_int8` (ops/conv.py) quantizes x and calls this op; `check_igemm` holds
every rule, so a bad call raises a typed InvalidArgumentError naming the argument before any kernel:
Ci % 64 (a K tile within one filter tap; pad the channels), Co % 8 (the TMA store), groups 1, stride 1..8, and the TMA
im2col window limits (padding 0..127, dilation * (K - 1) < 128) — `igemm_unsupported_reason` says why. The SM80
kernels need none of the TMA limits; they keep them, so that a model converts alike on either GPU.
"""
from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

import torch
import torch.nn.functional as F

from ..errors import InvalidArgumentError, UnsupportedConvError, UnsupportedDeviceError
from ..kernels import heuristics
from ..kernels.conv2d import CI_ALIGN, CO_ALIGN, CONV_SMS, select_config
from ..runtime import fastpath
from .gemm import _eager_direct
from ._registry import define_op

Tensor = torch.Tensor
ACTIVATIONS = (None, "relu", "relu6")
_OUT = {torch.bfloat16: "bf16", torch.float16: "f16", torch.int8: "s8"}
#: TMA im2col limits for 2 spatial dims (CUTLASS's can_implement: corners in [-128, 127], filter offsets < 255,
#: element strides <= 8); checked here so a conv the kernel cannot take is a typed error before any launch.
MAX_STRIDE = 8
MAX_CORNER = 127


def out_size(size: int, k: int, stride: int, pad: int, dil: int) -> int:
    """Output extent of one spatial dim (PyTorch's formula)."""
    return (size + 2 * pad - dil * (k - 1) - 1) // stride + 1


def igemm_unsupported_reason(kernel_size: Tuple[int, int], stride: Tuple[int, int], padding: Tuple[int, int],
                             dilation: Tuple[int, int], groups: int, in_channels: int,
                             out_channels: int) -> Optional[Tuple[str, str]]:
    """(argument, why) when the implicit-GEMM kernel cannot serve this convolution, else None."""
    if groups != 1:
        return "groups", f"groups={groups}: the int8 implicit GEMM serves groups=1 only"
    if in_channels % CI_ALIGN:
        return "in_channels", (f"Ci = {in_channels} is not a multiple of {CI_ALIGN} (the implicit GEMM's K tile "
                               f"runs over the channels of one filter tap; pad the input channels with zeros)")
    if out_channels % CO_ALIGN:
        return "out_channels", f"Co = {out_channels} is not a multiple of {CO_ALIGN} (16-byte output rows)"
    for i in range(2):
        k, s, p, d = kernel_size[i], stride[i], padding[i], dilation[i]
        if not 1 <= s <= MAX_STRIDE:
            return "stride", f"stride={tuple(stride)}: TMA im2col takes strides 1..{MAX_STRIDE}"
        if d < 1 or k < 1:
            return "dilation", f"dilation={tuple(dilation)}, kernel_size={tuple(kernel_size)} must be positive"
        if not 0 <= p <= MAX_CORNER or d * (k - 1) - p > MAX_CORNER + 1 or d * (k - 1) > 2 * MAX_CORNER:
            return "padding", (f"padding={tuple(padding)} with dilation={tuple(dilation)} and kernel "
                               f"{tuple(kernel_size)} leaves TMA im2col's window ([-128, 127] corners)")
    return None


def check_igemm(x: Tensor, w: Tensor, scale_x: Tensor, w_scale: Tensor, bias: Optional[Tensor],
                stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int], activation: Optional[str],
                out_dtype: torch.dtype, scale_out: Optional[Tensor] = None,
                scale_guard: Optional[Tensor] = None) -> Tuple[int, int]:
    """Every rule of the op; returns the output (P, Q). InvalidArgumentError naming the argument otherwise."""
    for name, t in (("x", x), ("w", w), ("scale_x", scale_x), ("w_scale", w_scale)):
        if not isinstance(t, Tensor):
            raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(t).__name__}")
    if x.dtype != torch.int8 or x.dim() != 4 or not x.is_contiguous():
        raise InvalidArgumentError("x", f"must be a contiguous int8 NHWC (N, H, W, Ci) tensor, got {x.dtype} "
                                        f"{tuple(x.shape)} strides {x.stride()}")
    if w.dtype != torch.int8 or w.dim() != 4 or not w.is_contiguous():
        raise InvalidArgumentError("w", f"must be a contiguous int8 KRSC (Co, Kh, Kw, Ci) tensor, got {w.dtype} "
                                        f"{tuple(w.shape)} strides {w.stride()}")
    n, h, wd, ci = x.shape
    co, kh, kw, wci = w.shape
    if wci != ci:
        raise InvalidArgumentError("x", f"has Ci = {ci} channels, the weight {wci}")
    if out_dtype not in _OUT:
        raise InvalidArgumentError("out_dtype", f"must be torch.bfloat16, torch.float16 or torch.int8, got {out_dtype}")
    quant_out = out_dtype == torch.int8
    if quant_out:
        if not isinstance(scale_out, Tensor) or scale_out.dtype != torch.float32 or scale_out.numel() != 1:
            got = f"{scale_out.dtype} {tuple(scale_out.shape)}" if isinstance(scale_out, Tensor) else repr(scale_out)
            raise InvalidArgumentError("scale_out", f"an int8 output needs the reciprocal of its scale as a "
                                                    f"one-element float32 tensor, got {got}")
        if co % 16:
            raise InvalidArgumentError("w", f"an int8 output needs Co % 16 == 0 (16-byte rows), got Co = {co}")
    elif scale_out is not None:
        raise InvalidArgumentError("scale_out", f"is for out_dtype=torch.int8 only, got out_dtype={out_dtype}")
    bias_dtype = torch.float32 if quant_out else out_dtype
    if activation not in ACTIVATIONS:
        raise InvalidArgumentError("activation", f"must be one of {ACTIVATIONS} for convolutions, got {activation!r}")
    for name, v in (("stride", stride), ("padding", padding), ("dilation", dilation)):
        if len(v) != 2 or any(not isinstance(e, int) or isinstance(e, bool) for e in v):
            raise InvalidArgumentError(name, f"must be two ints, got {v!r}")
    why = igemm_unsupported_reason((kh, kw), tuple(stride), tuple(padding), tuple(dilation), 1, ci, co)
    if why is not None:
        raise UnsupportedConvError(*why) if why[0] in ("stride", "padding", "dilation") else \
            InvalidArgumentError("w" if why[0].endswith("channels") else why[0], why[1])
    p = out_size(h, kh, stride[0], padding[0], dilation[0])
    q = out_size(wd, kw, stride[1], padding[1], dilation[1])
    if p < 1 or q < 1:
        raise InvalidArgumentError("x", f"spatial size {(h, wd)} gives no output for kernel {(kh, kw)}, "
                                        f"padding {tuple(padding)}, dilation {tuple(dilation)}")
    for name, t in (("scale_x", scale_x), ("scale_guard", scale_guard)):
        if t is not None and (not isinstance(t, Tensor) or t.dtype != torch.float32 or t.numel() != 1):
            got = f"{t.dtype} {tuple(t.shape)}" if isinstance(t, Tensor) else type(t).__name__
            raise InvalidArgumentError(name, f"must be a one-element float32 tensor, got {got}")
    if w_scale.dtype != torch.float32 or w_scale.numel() != co or w_scale.dim() > 2 or not w_scale.is_contiguous():
        raise InvalidArgumentError("w_scale", f"must be a contiguous float32 (Co,) or (1, Co) tensor with Co = {co}, "
                                              f"got {w_scale.dtype} {tuple(w_scale.shape)}")
    if bias is not None and (not isinstance(bias, Tensor) or bias.dtype != bias_dtype or tuple(bias.shape) != (co,)
                             or not bias.is_contiguous()):
        got = f"{bias.dtype} {tuple(bias.shape)}" if isinstance(bias, Tensor) else type(bias).__name__
        raise InvalidArgumentError("bias", f"must be a contiguous ({co},) {bias_dtype} tensor (the output dtype; "
                                           f"float32 for an int8 output), got {got}")
    for name, t in (("w", w), ("scale_x", scale_x), ("w_scale", w_scale), ("bias", bias), ("scale_out", scale_out),
                    ("scale_guard", scale_guard)):
        if t is not None and t.device != x.device:
            raise InvalidArgumentError(name, f"must be on x's device {x.device}, got {t.device}")
    if x.is_cuda and not torch.compiler.is_compiling():  # traced: the op's own implementation checks at run time
        for name, t in (("x", x), ("w", w), ("w_scale", w_scale), ("bias", bias)):
            if t is not None and t.numel() and t.data_ptr() % 16:
                raise InvalidArgumentError(name, "data pointer must be 16-byte aligned (TMA); pass a fresh tensor")
    return p, q


def reference(x: Tensor, w: Tensor, scale_x: Tensor, w_scale: Tensor, bias: Optional[Tensor], stride, padding,
              dilation, activation: Optional[str], out_dtype: torch.dtype, scale_out: Optional[Tensor] = None,
              scale_guard: Optional[Tensor] = None) -> Tensor:
    """The op in float64 (the CPU implementation and the tests' reference): NHWC in, NHWC out. An int8 output
    rounds y to float32 (the epilogue's value), multiplies by scale_out in float32, rounds half to even and
    saturates to [-128, 127]; NaN gives 0, as the kernel's conversion does (an int8 chain carries NaN in its
    first layer's scale instead, passed on as the later layers' `scale_guard`: nn/chain.py)."""
    acc = F.conv2d(x.permute(0, 3, 1, 2).double(), w.permute(0, 3, 1, 2).double(), None, tuple(stride),
                   tuple(padding), tuple(dilation))
    s = scale_x.double().reshape(())
    if scale_guard is not None:  # s + 0 * guard: s exactly, or NaN for a non-finite guard
        s = s + 0.0 * scale_guard.double().reshape(())
    y = acc * s * w_scale.double().reshape(1, -1, 1, 1)
    if bias is not None:
        y = y + bias.double().reshape(1, -1, 1, 1)
    if activation == "relu":
        y = torch.relu(y)
    elif activation == "relu6":
        y = torch.clamp(y, 0.0, 6.0)
    y = y.permute(0, 2, 3, 1)
    if out_dtype == torch.int8:
        t = y.float() * scale_out.float().reshape(())
        return torch.nan_to_num(torch.round(t), nan=0.0).clamp(-128, 127).to(torch.int8).contiguous()
    return y.to(out_dtype).contiguous()


class Plan(NamedTuple):
    """What a call of one (shapes, strides, dtypes, devices, conv parameters, activation) signature needs once
    its checks passed: the kernel and the launcher's integer arguments (workspace bytes included)."""
    lib: object              # loader.Conv2dLibrary (None on the CPU: the reference runs)
    device: int              # CUDA device index (-1: CPU)
    out_shape: Tuple[int, int, int, int]
    out_dtype: torch.dtype
    sizes: Tuple[int, ...]   # the launcher's 13 sizes, then p, q
    workspace_bytes: int


#: Plans by `plan_key`: a call whose key is here skips check_igemm, the capability query, the kernel selection
#: and the workspace query (the host cost of the op; issue 14). Cleared when full, like ops/gemm.py's.
_plans: Dict[tuple, Plan] = {}
#: The current stream's raw handle for a device index (a module name, so a CPU test can stand in for it).
_current_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
_MAX_PLANS = 1 << 12


def plan_key(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype,
             scale_out=None, scale_guard=None) -> Optional[tuple]:
    """Every property `check_igemm` reads except the data pointers (checked per call), or None when an argument
    is not a plain tensor (then the full check names it). Contiguity is a function of (shape, strides), numel of
    the shape, so two calls with one key pass or fail the shape/dtype/device rules alike."""
    if type(x) is not Tensor or type(w) is not Tensor or type(scale_x) is not Tensor or type(w_scale) is not Tensor:
        return None
    if bias is None:
        b = None
    elif type(bias) is Tensor:
        b = (bias.dtype, bias.shape, bias.stride(), bias.device)
    else:
        return None
    so = []
    for t in (scale_out, scale_guard):
        if t is None:
            so.append(None)
        elif type(t) is Tensor:
            so.append((t.dtype, t.shape, t.device))
        else:
            return None
    return (*so, x.device, x.dtype, x.shape, x.stride(), w.dtype, w.shape, w.stride(), w.device,
            scale_x.dtype, scale_x.shape, scale_x.device, w_scale.dtype, w_scale.shape, w_scale.stride(),
            w_scale.device, b, tuple(stride), tuple(padding), tuple(dilation), activation, out_dtype)


def _make_plan(x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out=None,
               scale_guard=None) -> Plan:
    """Check everything (typed errors), then pick and load the kernel and ask its workspace once."""
    p, q = check_igemm(x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out,
                       scale_guard)
    n, h, wd, ci = x.shape
    co, kh, kw, _ = w.shape
    sizes = (n, h, wd, ci, co, kh, kw, padding[0], padding[1], stride[0], stride[1], dilation[0], dilation[1])
    if not x.is_cuda:
        return Plan(None, -1, (n, p, q, co), out_dtype, sizes + (p, q), 0)
    from ..runtime import loader
    dev = x.get_device()
    cfg = kernel_config(dev, _OUT[out_dtype], act or "none", n * p * q, co, ci)  # before any launch
    lib = ws = None
    if n * p * q * co:
        lib = loader.get_kernel(cfg)
        ws = lib.workspace_size(*sizes)  # pure host arithmetic in the launcher: no device needed
    return Plan(lib, dev, (n, p, q, co), out_dtype, sizes + (p, q), ws or 0)


def kernel_config(device_index: int, out_dtype: str, activation: str, m: int, co: int, ci: int):
    """The conv kernel (kernels/conv2d.py config) a call with GEMM M = N*P*Q, `co` / `ci` channels takes on this
    device: SM90 kernels on 9.0, SM80 ones on 8.x (ops.gemm.kernel_sm's int8 family); UnsupportedDeviceError
    elsewhere."""
    from . import gemm
    sm = heuristics.family_sm(gemm.kernel_sm(device_index), "int8")  # raises below SM80
    if sm not in CONV_SMS:
        raise UnsupportedDeviceError(f"the int8 implicit-GEMM convolution has SM80 and SM90 kernels, this GPU runs "
                                     f"the SM{sm} family")
    return select_config(out_dtype, activation, m, co, ci, sm=sm)


def get_plan(x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out=None,
             scale_guard=None) -> Plan:
    """The memoised plan of this call (made, i.e. fully checked, on the first call of its key)."""
    key = plan_key(x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out, scale_guard)
    plan = None if key is None else _plans.get(key)
    if plan is None:
        plan = _make_plan(x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out,
                          scale_guard)
        if key is not None:
            if len(_plans) >= _MAX_PLANS:
                _plans.clear()
            _plans[key] = plan
            if plan.lib is not None:
                _register_fast(plan, act, bias is not None, scale_guard is not None, scale_out is not None)
    return plan


def _act_code(act: Optional[str]) -> Optional[int]:
    """The activation's code in the C++ eager entry's plan keys (csrc/conv_fast.cpp): the extension's one table
    (runtime/fastpath.ACTIVATION_CODES), limited to the conv kernels' activations; None for any other."""
    name = act or "none"
    return fastpath.ACTIVATION_CODES[name] if name in ("none", "relu", "relu6") else None


def _register_fast(plan: Plan, act: Optional[str], has_bias: bool, has_guard: bool, has_scale_out: bool) -> None:
    """Hand a checked CUDA plan to the C++ eager entry, which serves this signature's later eager calls."""
    fast = fastpath.module()
    if fast is not None:
        dims = [plan.device, *plan.sizes[:13], _act_code(act), int(has_bias), int(has_guard), int(has_scale_out)]
        fast.register_conv_plan(dims, plan.out_dtype, plan.sizes[13], plan.sizes[14], plan.workspace_bytes,
                                plan.lib.function_address)


def _fast_call(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype, scale_out,
               scale_guard) -> Optional[Tensor]:
    """The eager call through csrc/conv_fast.cpp (one pybind call: checks, registered plan, output, launch), or
    None when it does not serve it (fast path off or not built, a signature not yet planned, anything unusual, a
    failed launch): the Python path then takes the call and raises what there is to raise."""
    fast = fastpath.module()
    code = _act_code(activation)
    if fast is None or code is None:
        return None
    try:
        y = fast.conv_fast(x, w, scale_x, scale_guard, w_scale, bias, scale_out, stride[0], stride[1], padding[0],
                           padding[1], dilation[0], dilation[1], code, out_dtype)
    except (TypeError, KeyError, IndexError):  # an argument pybind cannot take: the Python path names it
        return None
    return y if isinstance(y, Tensor) else None


def _launch(plan: Plan, x, w, scale_x, w_scale, bias, scale_out=None, scale_guard=None) -> Tensor:
    """Allocate the output (and a workspace if the kernel wants one: per call from the caching allocator, which
    is stream-ordered and capture-safe, unlike a shared buffer) and launch on the current stream."""
    out = torch.empty(plan.out_shape, dtype=plan.out_dtype, device=x.device)
    if plan.lib is None:  # an empty output: nothing to launch
        return out
    ptrs = (x.data_ptr(), w.data_ptr(), w_scale.data_ptr(), 0 if bias is None else bias.data_ptr())
    if (ptrs[0] | ptrs[1] | ptrs[2] | ptrs[3]) % 16:  # data pointers change per call: TMA wants 16 bytes
        for name, ptr in zip(("x", "w", "w_scale", "bias"), ptrs):
            if ptr % 16:
                raise InvalidArgumentError(name, "data pointer must be 16-byte aligned (TMA); pass a fresh tensor")
    ws_bytes = plan.workspace_bytes
    ws = torch.empty(ws_bytes, dtype=torch.uint8, device=x.device).data_ptr() if ws_bytes else None
    plan.lib.launch(ptrs[0], ptrs[1], out.data_ptr(), scale_x.data_ptr(),
                    None if scale_guard is None else scale_guard.data_ptr(), ptrs[2], ptrs[3] or None,
                    None if scale_out is None else scale_out.data_ptr(), *plan.sizes, ws, ws_bytes,
                    _current_stream(plan.device))
    return out


def _impl(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype, scale_out=None,
          scale_guard=None):
    act = activation or None
    plan = get_plan(x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out, scale_guard)
    return _run(plan, x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out, scale_guard)


def _eager_cuda(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype, scale_out,
                scale_guard) -> Tensor:
    """An eager call on CUDA tensors: the C++ entry if it serves it, else the Python path, which hands the plan to the
    entry again. A plan is registered when it is made, but the entry's table is bounded and cleared on its own
    schedule (csrc/conv_fast.cpp): a signature still in the Python plan cache would otherwise stay on this path."""
    y = _fast_call(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype, scale_out,
                   scale_guard)
    if y is not None:
        return y
    act = activation or None
    plan = get_plan(x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out, scale_guard)
    if plan.lib is not None:
        _register_fast(plan, act, bias is not None, scale_guard is not None, scale_out is not None)
    return _run(plan, x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out, scale_guard)


def _run(plan: Plan, x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out,
         scale_guard) -> Tensor:
    if plan.device < 0:
        return reference(x, w, scale_x, w_scale, bias, stride, padding, dilation, act, out_dtype, scale_out,
                         scale_guard)
    if torch._C._cuda_getDevice() != plan.device:  # the device guard costs ~10 us: only when it switches
        with torch.cuda.device(plan.device):
            return _launch(plan, x, w, scale_x, w_scale, bias, scale_out, scale_guard)
    return _launch(plan, x, w, scale_x, w_scale, bias, scale_out, scale_guard)


# ------------------------------------------------------------------------------------ registration
_OP = define_op("conv2d_int8_igemm(Tensor x, Tensor w, Tensor scale_x, Tensor w_scale, Tensor? bias, int[] stride, "
                "int[] padding, int[] dilation, str activation, ScalarType out_dtype, Tensor? scale_out=None, "
                "Tensor? scale_guard=None) -> Tensor", _impl)


@torch.library.register_fake(_OP)
def _(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype, scale_out=None,
      scale_guard=None):
    n, h, wd, _ = x.shape
    co, kh, kw, _ = w.shape
    p = out_size(h, kh, stride[0], padding[0], dilation[0])
    q = out_size(wd, kw, stride[1], padding[1], dilation[1])
    return x.new_empty((n, p, q, co), dtype=out_dtype)


def conv2d_int8_igemm(x: Tensor, w: Tensor, scale_x: Tensor, w_scale: Tensor, bias: Optional[Tensor] = None,
                      stride: Sequence[int] = (1, 1), padding: Sequence[int] = (0, 0),
                      dilation: Sequence[int] = (1, 1), activation: Optional[str] = None,
                      out_dtype: torch.dtype = torch.bfloat16, scale_out: Optional[Tensor] = None,
                      scale_guard: Optional[Tensor] = None) -> Tensor:
    """The registered op on already-quantized NHWC / KRSC operands (module docstring); checks first.
    `out_dtype=torch.int8` with `scale_out` (1 / the output scale) quantizes the output in the epilogue;
    `scale_guard` turns scale_x into NaN when it is not finite (module docstring).
    Eager calls on plain tensors run the implementation directly (no dispatcher round trip), and check each
    (shape, dtype, device, parameters) signature once (`get_plan`), which hands the plan to the extension's C++
    entry (csrc/conv_fast.cpp): later eager calls of that signature are one pybind call. Traced calls check, then go
    through the op."""
    stride, padding, dilation = (list(map(int, v)) if isinstance(v, (tuple, list)) else v
                                 for v in (stride, padding, dilation))
    if _eager_direct(x):
        if x.is_cuda:
            return _eager_cuda(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype,
                               scale_out, scale_guard)
        return _impl(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation or "", out_dtype, scale_out,
                     scale_guard)
    check_igemm(x, w, scale_x, w_scale, bias, stride, padding, dilation, activation, out_dtype, scale_out,
                scale_guard)
    return torch.ops.cutlass_gemm.conv2d_int8_igemm(x, w, scale_x, w_scale, bias, stride, padding, dilation,
                                                    activation or "", out_dtype, scale_out, scale_guard)


__all__: List[str] = ["conv2d_int8_igemm", "check_igemm", "get_plan", "plan_key", "Plan", "igemm_unsupported_reason", "reference", "out_size"]
