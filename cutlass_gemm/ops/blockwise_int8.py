"""Per-block int8 W8A8 GEMM op: `cutlass_gemm::scaled_mm_blockwise_int8`.

    q, sa = quantize_per_group(x, 128)                       # (M, K) int8, (M, K / 128) float32
    y = scaled_mm_blockwise_int8(q, w_q, sa, w_scale, bias, out_dtype=torch.bfloat16, activation="silu")

    y[m, n] = act( sum_kb sa[m, kb] * sb[n, kb] * (sum_{k in block kb} a[m, k] * b[n, k]) + bias[n] )

a (M, K) and b (N, K) int8 with K contiguous ("TN"); scale_a (M, K/B) and scale_b (N, K/B) float32
with any strides (the layouts of `quantize_per_group` and `quant.quantize_per_block`, or views such as
a transposed (K/B, N) weight-scale table, or a per-token (M, 1) scale expanded to (M, K/B)); B =
`block_size` 64 or 128; bias (N,) in out_dtype; activation None/"relu"/"relu6"/"gelu_tanh"/"silu" with
the formulas of the CUTLASS epilogues (kernels/activations.py).

Backends (`blockwise_int8_backend(device)` says which one a call takes):
- "cuda_kernel": CUDA with the extension built. On SM90 with block 128 from M = 17 (`sm90_route`: N % 8 == 0,
  16-byte aligned rows; CUTLASS_GEMM_BI8_CUTLASS=0 turns it off) the CUTLASS int8 kernels of the blockwise family
  (kernels/cxx/blockwise_int8.hpp: int8 wgmma per K block, the scales applied per element into a float32 sum in the
  mainloop; 2.1-2.5x faster than the kernel below from 1024 rows, 0.42-0.56x of the per-token int8 GEMM: H100,
  tools/results/h100-2026-11-27/session28). Otherwise runtime/csrc/bi8_gemm.cuh, one kernel for every M (int8
  mma.sync per K block, int32 inside a block, fp32 across blocks, no int32 partial tensor in memory),
  small M with a deterministic in-kernel split-K; at M <= 16 the block-scaled decode GEMV instead
  (runtime/csrc/gemv_w8a8.cuh: the weight streamed with 16-byte loads, K split over warps in whole blocks;
  CUTLASS_GEMM_GEMV=0 keeps the tiled kernel); on the current stream, no host sync. SM80 or newer.
- "torch_reference": CPU tensors (float64), or CUDA when the extension could not be built (float32:
  the int8 block sums are exact in it), announced by a `BlockwiseInt8FallbackWarning`; the SM90 CUTLASS kernels,
  libraries of their own, still serve the calls `sm90_route` takes then (since session 47).
Every argument is checked before any kernel runs; problems raise `InvalidArgumentError` naming it.
"""
from __future__ import annotations

import os
from typing import Optional, Tuple

import torch

from ..errors import InvalidArgumentError, warn_user
from ..kernels import activations, gemv
from ..kernels.blockwise import BLOCK
from ..kernels.blockwise_heuristics import S8_MIN_M, relayout_sfa
from ..runtime import extension
from ..runtime import gemv as gemv_runtime
from . import blockwise as _blockwise_op
from ._registry import define_op

Tensor = torch.Tensor
BLOCK_SIZES = (64, 128)
_HALF = (torch.float16, torch.bfloat16)
_I32 = 2 ** 31


#: "0" keeps the extension's mma.sync kernel where the SM90 CUTLASS kernel would serve a call (for comparison; read
#: per call).
CUTLASS_ENV = "CUTLASS_GEMM_BI8_CUTLASS"


class BlockwiseInt8FallbackWarning(UserWarning):
    """A per-block int8 call on CUDA ran the torch reference (the extension could not be built)."""


# ------------------------------------------------------------------------------------ validation
def _check_int8(t, name: str) -> None:
    if not isinstance(t, Tensor):
        raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != torch.int8:
        raise InvalidArgumentError(name, f"dtype must be torch.int8, got {t.dtype}")
    if t.dim() != 2:
        raise InvalidArgumentError(name, f"must be 2-D ({'M' if name == 'a' else 'N'}, K), got shape {tuple(t.shape)}")
    if t.shape[1] > 1 and t.stride(1) != 1:
        raise InvalidArgumentError(name, f"K must be the contiguous dimension (stride 1), got strides {t.stride()}")


def _check_scale(t, name: str, rows: int, blocks: int, device) -> None:
    if not isinstance(t, Tensor):
        raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != torch.float32:
        raise InvalidArgumentError(name, f"dtype must be torch.float32, got {t.dtype}")
    if tuple(t.shape) != (rows, blocks):
        raise InvalidArgumentError(name, f"must have shape ({rows}, K / block_size = {blocks}), got {tuple(t.shape)}")
    if t.device != device:
        raise InvalidArgumentError(name, f"must be on {device} like a, got {t.device}")
    if rows and blocks and (rows - 1) * t.stride(0) + (blocks - 1) * t.stride(1) >= _I32:
        raise InvalidArgumentError(name, "its strides address more than 2^31 elements (the kernel's 32-bit offsets)")


def check_args(a, b, scale_a, scale_b, bias, out_dtype, activation, block_size) -> str:
    """Validate a call (typed errors naming the argument); returns the canonical activation name."""
    _check_int8(a, "a")
    _check_int8(b, "b")
    if not isinstance(block_size, int) or isinstance(block_size, bool) or block_size not in BLOCK_SIZES:
        raise InvalidArgumentError("block_size", f"must be one of {BLOCK_SIZES}, got {block_size!r}")
    m, k = a.shape
    n = b.shape[0]
    if b.shape[1] != k:
        raise InvalidArgumentError("b", f"must be (N, K) with K = {k} like a, got shape {tuple(b.shape)}")
    if k == 0 or k % block_size:
        raise InvalidArgumentError("a", f"K = {k} must be a positive multiple of block_size = {block_size}")
    if b.device != a.device:
        raise InvalidArgumentError("b", f"must be on {a.device} like a, got {b.device}")
    _check_scale(scale_a, "scale_a", m, k // block_size, a.device)
    _check_scale(scale_b, "scale_b", n, k // block_size, a.device)
    if out_dtype not in _HALF:
        raise InvalidArgumentError("out_dtype", f"must be torch.bfloat16 or torch.float16, got {out_dtype!r}")
    if bias is not None:
        if not isinstance(bias, Tensor) or tuple(bias.shape) != (n,) or bias.dtype != out_dtype:
            got = f"{bias.dtype} {tuple(bias.shape)}" if isinstance(bias, Tensor) else type(bias).__name__
            raise InvalidArgumentError("bias", f"must be a ({n},) {out_dtype} tensor, got {got}")
        if bias.device != a.device:
            raise InvalidArgumentError("bias", f"must be on {a.device} like a, got {bias.device}")
        if not bias.is_contiguous():
            raise InvalidArgumentError("bias", "must be contiguous")
    if max(m, n, k) >= _I32:
        raise InvalidArgumentError("a", "M, N and K must each be below 2^31")
    return activations.canonical(activation)


# ------------------------------------------------------------------------------------ implementations
def reference(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor], out_dtype: torch.dtype,
              activation: str, block_size: int, compute_dtype: torch.dtype = torch.float64) -> Tensor:
    """The float reference: per-block integer sums (exact in float32 and float64: |sum| <= 2^21), scaled
    and added in `compute_dtype`, + bias, the activation in float32 (as the epilogue), cast to out_dtype."""
    m, k = a.shape
    acc = torch.zeros((m, b.shape[0]), dtype=compute_dtype, device=a.device)
    for kb in range(k // block_size):
        sl = slice(kb * block_size, (kb + 1) * block_size)
        dots = a[:, sl].to(compute_dtype) @ b[:, sl].to(compute_dtype).t()
        acc += dots * scale_a[:, kb:kb + 1].to(compute_dtype) * scale_b[:, kb].to(compute_dtype)[None, :]
    y = acc.to(torch.float32)
    if bias is not None:
        y = y + bias.to(torch.float32)
    return activations.torch_activation(activation)(y).to(out_dtype)


def _aligned_rows(t: Tensor) -> Tensor:
    """`t`, or a contiguous copy where cp.async's 16-byte row loads would be misaligned (host check)."""
    if t.data_ptr() % 16 == 0 and (t.shape[0] <= 1 or t.stride(0) % 16 == 0):
        return t
    return t.contiguous() if not t.is_contiguous() else t.clone()


def sm90_serves(device: int, m: int, n: int, block_size: int) -> bool:
    """The shape and device conditions of the SM90 CUTLASS route, shared by `sm90_route` and the layers' C++ call
    (ops/block_linear.py): block 128, M >= S8_MIN_M, N % 8 == 0 (the TMA store), an SM90 GPU, CUTLASS_GEMM_BI8_CUTLASS
    not "0". The operands' alignment is each caller's to check."""
    return (block_size == BLOCK and m >= S8_MIN_M and n % 8 == 0 and os.environ.get(CUTLASS_ENV) != "0"
            and _blockwise_op.is_sm90(device))


def sm90_route(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor],
               block_size: int) -> Optional[Tuple[Tensor, Tensor, str]]:
    """(scale_a, scale_b, scale_a major) for the SM90 CUTLASS kernel (kernels/cxx/blockwise_int8.hpp), or None where
    it does not serve a (validated, CUDA) call: block 128, M >= S8_MIN_M, N % 8 == 0 (the TMA store), 16-byte aligned
    operand rows and bias, an SM90 GPU, CUTLASS_GEMM_BI8_CUTLASS not "0". Scales of other strides are made
    contiguous (the kernel gathers (M, K/128) row-major or its column-major transpose, and (N, K/128) row-major)."""
    m, k = a.shape
    n = b.shape[0]
    if a.data_ptr() % 16 or b.data_ptr() % 16 or (m > 1 and a.stride(0) % 16) or (n > 1 and b.stride(0) % 16):
        return None
    if (bias is not None and bias.data_ptr() % 16) or not sm90_serves(a.get_device(), m, n, block_size):
        return None
    if scale_a.is_contiguous():
        major = "k"
        if relayout_sfa(m, k, "s8", n):  # coalesced gathers of the per-token scales, worth the copy (kernels/blockwise)
            scale_a, major = scale_a.t().contiguous().t(), "mn"
    elif scale_a.stride() == (1, m):
        major = "mn"
    else:
        scale_a, major = scale_a.contiguous(), "k"
    return scale_a, scale_b.contiguous(), major


def blockwise_int8_backend(device: torch.device) -> str:
    """"cuda_kernel" or "torch_reference" for a call on `device` (see the module docstring). On CUDA this
    loads (first use: builds) the extension."""
    device = torch.device(device)
    if device.type == "cuda" and extension.load() is not None:
        return "cuda_kernel"
    return "torch_reference"


def _impl(a, b, scale_a, scale_b, bias, out_dtype, activation, block_size):
    # the op's schema carries the canonical name ("none" for no activation)
    act = check_args(a, b, scale_a, scale_b, bias, out_dtype, activations.public(activation), block_size)
    if not a.is_cuda:
        return reference(a, b, scale_a, scale_b, bias, out_dtype, act, block_size)
    if a.shape[0] == 0:
        return torch.empty((0, b.shape[0]), dtype=out_dtype, device=a.device)
    ext = extension.load()
    if ext is not None and a.shape[0] <= gemv.MAX_M and gemv_runtime.block_module() is not None:
        # decode: the block-scaled GEMV streams the weight (runtime/csrc/gemv_w8a8.cuh); CUTLASS_GEMM_GEMV=0 keeps
        # the tiled kernel (for comparison)
        return ext.block_gemv(_aligned_rows(a), _aligned_rows(b), scale_a, scale_b, bias, out_dtype, block_size, 0,
                              activations.EXT_CODES[act])
    route = sm90_route(a, b, scale_a, scale_b, bias, block_size)
    if route is not None:  # SM90: int8 wgmma per K block with the scales applied in the mainloop (CUTLASS; a kernel
        sa, sb, major = route  # library of its own: it serves without the torch extension too)
        m, k = a.shape
        return _blockwise_op.launch(a, b.stride(0) if b.shape[0] > 1 else k, b, sa, sb, bias, out_dtype, act, m,
                                    b.shape[0], k, major, "s8")
    if ext is None:
        warn_user("cutlass_gemm scaled_mm_blockwise_int8: no compiled extension; running the torch reference "
                  "(slow, documented fallback; see blockwise_int8_backend)", BlockwiseInt8FallbackWarning)
        return reference(a, b, scale_a, scale_b, bias, out_dtype, act, block_size, torch.float32)
    return ext.bi8_gemm(_aligned_rows(a), _aligned_rows(b), scale_a, scale_b, bias, out_dtype, block_size,
                        activations.EXT_CODES[act], 0)


# ------------------------------------------------------------------------------------ registration
_OP = define_op("scaled_mm_blockwise_int8(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor? bias, "
                "ScalarType out_dtype, str activation, int block_size) -> Tensor", _impl)


@torch.library.register_fake(_OP)
def _(a, b, scale_a, scale_b, bias, out_dtype, activation, block_size):
    return a.new_empty((a.shape[0], b.shape[0]), dtype=out_dtype)


# ------------------------------------------------------------------------------------ public API
def scaled_mm_blockwise_int8(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor] = None,
                             out_dtype: torch.dtype = torch.bfloat16, activation: Optional[str] = None,
                             block_size: int = 128) -> Tensor:
    """act(per-block-scaled a @ b^T + bias) in out_dtype (see the module docstring): a (M, K) int8, b (N, K)
    int8, scale_a (M, K / block_size) and scale_b (N, K / block_size) float32. Typed errors
    (InvalidArgumentError naming the argument) before any kernel runs."""
    act = check_args(a, b, scale_a, scale_b, bias, out_dtype, activation, block_size)
    return torch.ops.cutlass_gemm.scaled_mm_blockwise_int8(a, b, scale_a, scale_b, bias, out_dtype, act, block_size)
