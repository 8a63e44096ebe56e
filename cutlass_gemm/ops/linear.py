"""The call a W8A8 linear layer makes: quantize the activation, then the fused GEMM.

    w8a8_linear(x, weight, weight_scale, bias=None, *, act="dynamic", input_scale=None,
                input_zero_point=None, azp_adj=None, out_dtype=None, activation=None) -> (..., N)

`weight` is the (N, K) int8 or float8_e4m3fn weight (contiguous, as nn.Linear stores it), `weight_scale`
its (1, N) float32 per-channel scale, `bias` (N,) in the output dtype. `act` picks the activation
scheme: "dynamic" (per-token symmetric), "dynamic_asym" (int8 per-token with zero points; `azp_adj`
= (1, N) int32 column sums of the weight), "dynamic_per_tensor", or "static" (per-tensor `input_scale`,
a one-element float32 tensor; with `input_zero_point`, a one-element int32 tensor, static asymmetric,
which also needs `azp_adj`). The output dtype is `out_dtype`, else x's dtype when it is half precision;
a float32 x is computed with bfloat16 output and returned as float32. `activation` (None, "relu",
"relu6", "gelu_tanh", "silu") is applied in the GEMM's epilogue (see ops/gemm.py), not to `x`.

Under torch.compile, fake tensors and dispatch modes the call is one registered op, `cutlass_gemm::w8a8_linear`,
whose implementation is the eager call below on the concrete tensors. The rows, tile and padding therefore are
chosen per call from the real M, and tracing meets no branch on M: a graph compiled with a symbolic batch
(torch.compile's automatic dynamic shapes, `mark_dynamic`) carries no guard on it and is not recompiled per range
of rows. An eager CUDA call goes through the extension's `w8a8_linear` (runtime/csrc/w8a8_fast.cpp): quantization
and GEMM launched from one C++ call, which for a contiguous x with a registered GEMM plan makes no torch op at all
(one buffer for the quantized rows and scales, the output allocated in its final shape); otherwise (no plan yet,
the fast path off, CPU) the registered quantize and GEMM ops, composed.

Both quantize into the rows the GEMM runs on: M rounded up to whole M tiles of its kernel where that is faster
(kernels/heuristics.py padded_rows, SM90 at 17..1023 rows; zero rows past M), and return the first M rows.
"""
from __future__ import annotations

from typing import Optional

import torch

from ..errors import InvalidArgumentError
from ..kernels import activations, heuristics
from ..runtime import fastpath
from . import gemm
from . import quantize as qops
from ._registry import define_op

ACTS = ("dynamic", "dynamic_asym", "dynamic_per_tensor", "static")
_CODES = {"dynamic": 0, "dynamic_asym": 1, "static": 2, "dynamic_per_tensor": 4}  # 3: static with zero point
_HALF = (torch.bfloat16, torch.float16)
_ext = None  # the extension once loaded (False: unavailable or the fast path is off)


def _check(x, weight, act, input_scale, input_zero_point, azp_adj) -> None:
    if act not in _CODES:
        raise InvalidArgumentError("act", f"must be one of {ACTS}, got {act!r}")
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2 or weight.dtype not in (torch.int8, torch.float8_e4m3fn):
        raise InvalidArgumentError("weight", "must be a 2-D (N, K) int8 or float8_e4m3fn tensor")
    qops._check_x(x)
    if x.shape[-1] != weight.shape[1]:
        raise InvalidArgumentError("x", f"must be (..., {weight.shape[1]}), got {tuple(x.shape)}")
    if act == "dynamic_asym" or input_zero_point is not None:
        if weight.dtype != torch.int8:
            raise InvalidArgumentError("act", "zero points (asymmetric activations) need an int8 weight")
        if azp_adj is None:
            raise InvalidArgumentError("azp_adj", "asymmetric activations need the weight's column sums")
    if act == "static" and input_scale is None:
        raise InvalidArgumentError("input_scale", "act='static' needs the calibrated per-tensor scale")
    if act != "static" and (input_scale is not None or input_zero_point is not None):
        raise InvalidArgumentError("input_scale", f"act={act!r} computes its scales; input_scale/input_zero_point "
                                                  f"are for act='static'")


_IN = {torch.int8: "int8", torch.float8_e4m3fn: "e4m3"}
_rows_cache: dict = {}  # (device, M, N, K, weight dtype, activation) -> rows; the eager hot path asks on every call


def _rows_to_run(device_index: int, m: int, n: int, k: int, wdtype: torch.dtype, act_name: str) -> int:
    """The M the GEMM runs on: heuristics.padded_rows for the device's kernel family."""
    try:
        sm = heuristics.family_sm(gemm.kernel_sm(device_index), _IN[wdtype])
    except Exception:  # an unsupported device: no padding; the GEMM raises its typed error itself
        return m
    return heuristics.padded_rows(sm, m, n, _IN[wdtype], activation=act_name, k=k)


def padded_rows_for(x: torch.Tensor, weight: torch.Tensor, act_name: str = "none") -> int:
    """The rows `w8a8_linear` quantizes a concrete x into and runs its GEMM on (x's rows on CPU); `act_name` the
    epilogue activation as activations.canonical names it."""
    m = x.numel() // x.shape[-1] if x.shape[-1] else 0
    if not x.is_cuda or weight.dtype not in _IN:
        return m
    return _eager_rows(x, weight, act_name)


def _eager_rows(x: torch.Tensor, weight: torch.Tensor, act_name: str) -> int:
    """padded_rows_for outside torch.compile (the eager hot path calls it directly on a plain CUDA tensor): memoised,
    looked up with few tensor attribute reads (x.get_device() is an int; x.device builds an object)."""
    k = x.shape[-1]
    key = (x.get_device(), x.numel() // k if k else 0, weight.shape[0], k, weight.dtype, act_name)
    rows = _rows_cache.get(key)
    if rows is None:
        if len(_rows_cache) > 4096:
            _rows_cache.clear()
        rows = _rows_cache[key] = _rows_to_run(*key) if weight.dtype in _IN else key[1]
    return rows


def _gemm(q, b, scale, weight_scale, out_dtype, bias, azp=None, adj=None, activation=None):
    if adj is None:
        return gemm.scaled_mm(q, b, scale, weight_scale, out_dtype, bias, activation=activation)
    return gemm.scaled_mm_azp(q, b, scale, weight_scale, out_dtype, adj, azp, bias, activation=activation)


def _composed(x2, b, weight_scale, bias, act, input_scale, input_zero_point, azp_adj, out_dtype, qtype,
              activation=None, pad=0):
    """quantize + GEMM through the registered ops; `pad`: the rows to quantize into (0: x2's)."""
    if act == "dynamic":
        q, s = qops.quantize_per_token(x2, qtype, pad_rows=pad)
        return _gemm(q, b, s, weight_scale, out_dtype, bias, activation=activation)
    if act == "dynamic_asym":
        q, s, z = qops.quantize_per_token_asym(x2, pad_rows=pad)
        return _gemm(q, b, s, weight_scale, out_dtype, bias, z, azp_adj, activation)
    if act == "dynamic_per_tensor":
        q, s = qops.quantize_per_tensor(x2, qtype, pad_rows=pad)
        return _gemm(q, b, s, weight_scale, out_dtype, bias, activation=activation)
    q, s = qops.quantize_static(x2, input_scale, qtype, input_zero_point, pad_rows=pad)
    if input_zero_point is None:
        return _gemm(q, b, s, weight_scale, out_dtype, bias, activation=activation)
    adj = (azp_adj * input_zero_point).to(torch.int32)  # per-tensor zero point: azp * column sums
    return _gemm(q, b, s, weight_scale, out_dtype, bias, None, adj, activation)


def _out_dtype(x: torch.Tensor, out_dtype: Optional[torch.dtype]) -> torch.dtype:
    return out_dtype if out_dtype is not None else (x.dtype if x.dtype in _HALF else torch.bfloat16)


def w8a8_linear(x: torch.Tensor, weight: torch.Tensor, weight_scale: torch.Tensor,
                bias: Optional[torch.Tensor] = None, *, act: str = "dynamic",
                input_scale: Optional[torch.Tensor] = None, input_zero_point: Optional[torch.Tensor] = None,
                azp_adj: Optional[torch.Tensor] = None, out_dtype: Optional[torch.dtype] = None,
                activation: Optional[str] = None) -> torch.Tensor:
    """y = act(dequant(quant(x) @ weight.T) + bias) for an (N, K) int8/fp8 weight; see the module docstring."""
    act_name = activations.canonical(activation)  # InvalidArgumentError("activation") before any kernel
    if gemm._eager_direct(x):
        return _run(x, weight, weight_scale, bias, act, input_scale, input_zero_point, azp_adj, out_dtype, act_name)
    # traced (torch.compile, fake tensors, modes): checked now, then one op whose rows are chosen when it runs
    _check(x, weight, act, input_scale, input_zero_point, azp_adj)
    return torch.ops.cutlass_gemm.w8a8_linear(x, weight, weight_scale, bias, act, input_scale, input_zero_point,
                                              azp_adj, _out_dtype(x, out_dtype), act_name)


def _run(x, weight, weight_scale, bias, act, input_scale, input_zero_point, azp_adj, out_dtype,
         act_name) -> torch.Tensor:
    """The call on concrete tensors (eager, or the op's implementation): the C++ one-call path where it serves,
    else the registered quantize and GEMM ops on the rows padded_rows_for picks."""
    global _ext
    pending = None
    if type(x) is torch.Tensor and x.is_cuda and gemm._eager_direct(x):
        # The eager hot path: one C++ call that checks what it relies on and returns None otherwise.
        if _ext is None:
            _ext = fastpath.module() or False
        code = _CODES.get(act)
        if _ext and code is not None and isinstance(weight, torch.Tensor) and weight.dim() == 2:
            res = _ext.w8a8_linear(x, weight, weight_scale, bias, 3 if input_zero_point is not None else code,
                                   input_scale, input_zero_point, azp_adj, out_dtype,
                                   fastpath.ACTIVATION_CODES[act_name], _eager_rows(x, weight, act_name))
            if type(res) is torch.Tensor:
                return res
            if type(res) is tuple:  # (q, scale, azp, azp_adj): no GEMM plan for this M yet
                pending = res
            # else None (an unusual call) or a failed launch's code: the Python path redoes the call and raises
    _check(x, weight, act, input_scale, input_zero_point, azp_adj)
    n, k = weight.shape
    out_dtype = _out_dtype(x, out_dtype)
    x2 = x.reshape(-1, k)
    b = weight.t()
    m = x2.shape[0]
    activation = activations.public(act_name)
    if pending is not None:  # the Python path makes the plan (and raises typed errors)
        q, s, z, adj = pending  # padded by the C++ call to the rows its GEMM would run on
        out = _gemm(q, b, s, weight_scale, out_dtype, bias, z, adj, activation)
    else:
        rows = padded_rows_for(x2, weight, act_name)
        out = _composed(x2, b, weight_scale, bias, act, input_scale, input_zero_point, azp_adj, out_dtype,
                        weight.dtype, activation, rows if rows > m else 0)
    if out.shape[0] != m:
        out = out[:m]
    out = out.reshape(*x.shape[:-1], n)
    return out if x.dtype in _HALF or x.dtype == out_dtype else out.to(x.dtype)


def _impl(x, weight, weight_scale, bias, act, input_scale, input_zero_point, azp_adj, out_dtype, activation):
    return _run(x, weight, weight_scale, bias, act, input_scale, input_zero_point, azp_adj, out_dtype, activation)


_OP = define_op("w8a8_linear(Tensor x, Tensor weight, Tensor weight_scale, Tensor? bias, str act, Tensor? input_scale, "
                "Tensor? input_zero_point, Tensor? azp_adj, ScalarType out_dtype, str activation) -> Tensor", _impl)


@torch.library.register_fake(_OP)
def _(x, weight, weight_scale, bias, act, input_scale, input_zero_point, azp_adj, out_dtype, activation):
    # the dtype _run returns: out_dtype for a half-precision x (or one already in out_dtype), else x's
    dtype = out_dtype if x.dtype in _HALF or x.dtype == out_dtype else x.dtype
    return x.new_empty(tuple(x.shape[:-1]) + (weight.shape[0],), dtype=dtype)
