"""The eager call of the per-block layers (`Int8BlockLinear`, `Fp8BlockLinear`): one C++ call at every M.

Both layers run per-group activation quantization, then a GEMM: at M <= 16 the block-scaled GEMV (extension),
above it the extension's per-block int8 kernel or the CUTLASS blockwise fp8 kernel. Through the Python ops
(`quantize_per_group`, then `scaled_mm_blockwise` / `scaled_mm_blockwise_int8`, each validating its arguments and
dispatching) an eager Fp8BlockLinear call took 70-114 us of wall clock at decode shapes whose GPU time is 9-46 us (H100,
tools/results/h100-2026-11-27/session23/call3), and 130-145 us at 256-4096 x 7168 x 2048 (session24/call3: the GPU
waited on the host up to M = 1024); through this path 39-45 us at decode shapes, on that host the cost of an
`nn.Linear` module call (session23/call4/host.md). `block_linear_fast` hands the whole call to the extension's
`block_linear_fast`, which checks what it relies on and returns None otherwise; the layers then take their Python
path, which validates and raises the typed errors (`block_linear` below holds both). For fp8 above decode sizes the
CUTLASS kernel is the one the op would take (`ops/blockwise.py` `_plan`: looked up, or built, once per shape), its
C-ABI launcher called from C++ with
the activation scales in the layout the layer asks for (kernels/blockwise_heuristics.py layer_sfa_major). Only plain eager
tensors take it (torch.compile, dispatch modes and fake tensors trace the registered ops), and only where the Python
path would run the same kernels: the extension loaded, the fast path on (CUTLASS_GEMM_FAST_PATH, read at the first
call, like the W8A8 layers' fast path); at M <= 16 also the GEMV on (CUTLASS_GEMM_GEMV, read per call).

Traced calls (torch.compile, fake tensors, dispatch modes) are one registered op, `cutlass_gemm::block_linear`,
whose implementation is this eager call on the concrete tensors: the padded rows and the scales' layout are chosen
from the real M when it runs, so a graph with a symbolic batch carries no guard on it (ops/linear.py does the same).
"""
from __future__ import annotations

from typing import Optional

import torch

from ..kernels import activations, gemv
from ..runtime import fastpath, gemv as gemv_runtime
from ..kernels.blockwise_heuristics import layer_sfa_major, padded_rows
from ._registry import define_op
from .blockwise import _plan, is_sm90, scaled_mm_blockwise
from .blockwise_int8 import scaled_mm_blockwise_int8, sm90_serves
from .gemm import _eager_direct
from .quantize import quantize_per_group

_FLOAT_IN = (torch.float32, torch.float16, torch.bfloat16)

_ext = None  # the extension once loaded (False: unavailable)


def _int8_cutlass(x, weight, weight_scale, bias, m: int, block: int) -> bool:
    """Whether scaled_mm_blockwise_int8 would run the SM90 CUTLASS kernel for this layer call: sm90_serves, and the
    operands aligned as sm90_route checks them (the C++ call's quantized activations are contiguous and aligned)."""
    if not weight.is_contiguous() or weight.data_ptr() % 16 or not weight_scale.is_contiguous():
        return False
    if bias is not None and bias.data_ptr() % 16:
        return False
    return sm90_serves(x.get_device(), m, weight.shape[0], block)


def block_linear_fast(x: torch.Tensor, weight: torch.Tensor, weight_scale: torch.Tensor,
                      bias: Optional[torch.Tensor], out_dtype: torch.dtype, activation: str, block: int,
                      blockwise_fp8: bool) -> Optional[torch.Tensor]:
    """act(block-scaled quant(x) @ weight.T + bias) as (..., N) in out_dtype, or None when this call must take
    the layer's Python path. `activation` is canonical ("none", "relu", ...); `blockwise_fp8`: the weight scale
    is per 128 x 128 block ((ceil(N / 128), K / 128), Fp8BlockLinear), else per row and block ((N, K / block))."""
    global _ext
    # traced calls (torch.compile, fake tensors) leave before the extension is looked up: loading it takes a lock,
    # which Dynamo cannot trace, and a model compiled before any eager call would fail under fullgraph=True
    if type(x) is not torch.Tensor or not x.is_cuda or not _eager_direct(x):
        return None
    if _ext is None:  # once per process, as the W8A8 layers' fast path (ops/linear.py)
        _ext = fastpath.module() or False
    if not _ext:
        return None
    k = weight.shape[-1]
    if weight.dim() != 2 or k == 0 or x.dim() < 1 or x.shape[-1] != k:
        return None
    m = x.numel() // k
    # M <= 16 runs the GEMV, which CUTLASS_GEMM_GEMV=0 turns off (read per call, as the ops' Python path reads it)
    max_m = gemv.MAX_M if gemv_runtime.enabled() else 0
    if m == 0 or (m <= gemv.MAX_M and not max_m):
        return None
    if blockwise_fp8 and not is_sm90(x.get_device()):  # the fp8 family serves SM90 only: the Python path says so
        return None
    fn, ws_bytes, col_major, rows = 0, 0, False, m
    if m > max_m and (blockwise_fp8 or _int8_cutlass(x, weight, weight_scale, bias, m, block)):
        # the CUTLASS kernel the op would run for this shape (planned once per shape), on whole M tiles for fp8
        ab = "e4m3" if blockwise_fp8 else "s8"
        rows = padded_rows(m, ab, weight.shape[0])
        major = layer_sfa_major(rows, ab)
        lib, ws_bytes = _plan(x.get_device(), rows, weight.shape[0], k, out_dtype, activation, major, ab)
        fn, col_major = lib.function_address, major == "mn"
    return _ext.block_linear_fast(x, weight, weight_scale, bias, block, 7 if blockwise_fp8 else 0, out_dtype,
                                  activations.EXT_CODES[activation], max_m, fn, ws_bytes, col_major, rows)


def block_linear(x: torch.Tensor, weight: torch.Tensor, weight_scale: torch.Tensor, bias: Optional[torch.Tensor],
                 out_dtype: torch.dtype, activation: str, block: int, blockwise_fp8: bool) -> torch.Tensor:
    """The per-block layers' call (arguments as `block_linear_fast`'s; x's last dimension checked by the layer):
    (..., N) in out_dtype. Eager: the C++ call, else the registered quantize and GEMM ops; traced: one op."""
    if not _eager_direct(x):
        return torch.ops.cutlass_gemm.block_linear(x, weight, weight_scale, bias, out_dtype, activation, block,
                                                   blockwise_fp8)
    return _impl(x, weight, weight_scale, bias, out_dtype, activation, block, blockwise_fp8)


def _composed(x, weight, weight_scale, bias, out_dtype, activation, block, blockwise_fp8) -> torch.Tensor:
    """quantize_per_group, then the family's GEMM op, on a concrete x: whole M tiles for the SM90 fp8 kernel and the
    activation scales in the layout the kernel reads (as the C++ call runs them)."""
    n, k = weight.shape
    # the quantizer reads float32 / 16-bit inputs as they are; others (float64) go through the output dtype
    x2 = (x if x.dtype in _FLOAT_IN else x.to(out_dtype)).reshape(-1, k)
    if x2.stride(-1) != 1:  # the quantizer reads unit-stride rows; F.linear takes any strides, so does the layer
        x2 = x2.contiguous()
    m = x2.shape[0]
    act = activations.public(activation)
    if blockwise_fp8:
        rows = padded_rows(m, "e4m3", n) if x2.is_cuda else m
        pad = rows if rows > m and is_sm90(x2.get_device()) else 0
        q, s = quantize_per_group(x2, block, torch.float8_e4m3fn, pad_rows=pad,
                                  column_major_scale=layer_sfa_major(pad or m) == "mn")
        y = scaled_mm_blockwise(q, weight.t(), s, weight_scale, bias, out_dtype, act)
        y = y[:m] if pad else y
    else:
        col = x2.is_cuda and layer_sfa_major(m, "s8") == "mn" and sm90_serves(x2.get_device(), m, n, block)
        q, s = quantize_per_group(x2, block, torch.int8, column_major_scale=col)
        y = scaled_mm_blockwise_int8(q, weight, s, weight_scale, bias, out_dtype=out_dtype, activation=act,
                                     block_size=block)
    return y.reshape(tuple(x.shape[:-1]) + (n,))


def _impl(x, weight, weight_scale, bias, out_dtype, activation, block, blockwise_fp8):
    """The call on concrete tensors (eager, or the op's implementation): the C++ call, else the composed ops."""
    y = block_linear_fast(x, weight, weight_scale, bias, out_dtype, activation, block, blockwise_fp8)
    return y if y is not None else _composed(x, weight, weight_scale, bias, out_dtype, activation, block,
                                             blockwise_fp8)


_OP = define_op("block_linear(Tensor x, Tensor weight, Tensor weight_scale, Tensor? bias, ScalarType out_dtype, "
                "str activation, int block, bool blockwise_fp8) -> Tensor", _impl)


@torch.library.register_fake(_OP)
def _(x, weight, weight_scale, bias, out_dtype, activation, block, blockwise_fp8):
    return x.new_empty(tuple(x.shape[:-1]) + (weight.shape[0],), dtype=out_dtype)
