"""`cutlass_gemm::scaled_mm_blockwise`: the blockwise-scaled fp8 GEMM (DeepSeek-V3 style), a torch.library op.

    y = scaled_mm_blockwise(a, b, scale_a, scale_b, bias=None, out_dtype=torch.bfloat16, activation=None)

    y[m, n] = act( sum_kb scale_a[m, kb] * scale_b[n // 128, kb] * (a[m, kb*128:(kb+1)*128] . b[kb*128:(kb+1)*128, n])
                   + bias[n] )

- a: float8_e4m3fn (M, K) row-major (unit last stride; row stride a multiple of 16); K % 128 == 0.
- b: float8_e4m3fn (K, N) column-major: the `.t()` of a contiguous (N, K) weight; N % 8 == 0 (the TMA
  store of 16-byte bf16/fp16 rows).
- scale_a: float32 (M, K // 128), one scale per token per 128-wide K group. Row-major (what
  `cutlass_gemm.quantize_per_group(x, 128, torch.float8_e4m3fn)` returns: no copy), or its column-major
  transpose (stride (1, M), M % 4 == 0: the collective then loads it with TMA; from K = 4096 and M = 512 the op
  makes that copy itself when given the row-major one: kernels/blockwise_heuristics.relayout_sfa).
- scale_b: float32 (ceil(N / 128), K // 128) contiguous, one scale per 128 x 128 weight block.
- bias: None or (N,) in out_dtype; out_dtype bfloat16 or float16.
- activation: None, "relu", "relu6", "gelu_tanh", "silu" (float32, after the bias, before the conversion).

Every argument is checked before any kernel runs (InvalidArgumentError naming it); CUDA needs an SM90 GPU
(UnsupportedDeviceError elsewhere: the mainloop is wgmma-only). At M <= 16 the extension's block-scaled decode
GEMV (runtime/csrc/gemv_w8a8.cuh) serves the call instead of CUTLASS (CUTLASS_GEMM_GEMV=0 keeps CUTLASS). A call whose
last M tile would be mostly empty runs on a and scale_a copied into whole tiles (blockwise_heuristics.op_padded_rows,
runtime/rowpad.py; CUTLASS_GEMM_PAD_ROWS=0 turns it off) and returns the first M rows.
CPU tensors run the float64 reference
(`cutlass_gemm.quant.blockwise.blockwise_reference`). The CUDA path never reads a tensor value on the host.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

import torch

from ..errors import InvalidArgumentError, UnsupportedDeviceError
from ..kernels import activations, gemv
from ..kernels.blockwise import BLOCK
from ..kernels.blockwise_heuristics import op_padded_rows, relayout_sfa, select_config
from ..runtime import gemv as gemv_runtime, rowpad
from ..quant.blockwise import blockwise_reference
from ._registry import define_op

Tensor = torch.Tensor
_FP8 = torch.float8_e4m3fn
_OUT = {torch.bfloat16: "bf16", torch.float16: "f16"}
_INT32_MAX = 2 ** 31 - 1
K_ALIGN = BLOCK  # K must hold whole scale blocks
N_ALIGN = 8      # 16-byte output rows (TMA store)


def _tensor(t, name: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(t).__name__}")
    return t


def validate(a, b, scale_a, scale_b, bias, out_dtype) -> Tuple[int, int, int, str]:
    """(M, N, K, scale_a major "k" | "mn") of a valid call; InvalidArgumentError naming the argument otherwise.
    Reads shapes, strides and pointers only (no sync)."""
    a, b, scale_a, scale_b = (_tensor(t, n) for t, n in ((a, "a"), (b, "b"), (scale_a, "scale_a"), (scale_b, "scale_b")))
    if out_dtype not in _OUT:
        raise InvalidArgumentError("out_dtype", f"must be torch.bfloat16 or torch.float16, got {out_dtype}")
    for t, name in ((a, "a"), (b, "b")):
        if t.dtype != _FP8:
            raise InvalidArgumentError(name, f"dtype must be torch.float8_e4m3fn, got {t.dtype}")
        if t.dim() != 2:
            raise InvalidArgumentError(name, f"must be 2-D, got shape {tuple(t.shape)}")
    m, k = a.shape
    if b.shape[0] != k:
        raise InvalidArgumentError("b", f"must be (K, N) with K = {k} (a's columns), got {tuple(b.shape)}")
    n = b.shape[1]
    if k % K_ALIGN or k == 0:
        raise InvalidArgumentError("a", f"K = {k} must be a positive multiple of {K_ALIGN} (whole 128-wide scale blocks)")
    if n % N_ALIGN:
        raise InvalidArgumentError("b", f"N = {n} must be a multiple of {N_ALIGN} (16-byte output rows); pad the weight")
    if max(m, n, k) > _INT32_MAX:
        raise InvalidArgumentError("a", f"dimensions must fit in int32, got M={m}, N={n}, K={k}")
    if k > 1 and a.stride(1) != 1:
        raise InvalidArgumentError("a", f"must be row-major (unit last stride), got strides {a.stride()}")
    if m > 1 and a.stride(0) % 16:
        raise InvalidArgumentError("a", f"row stride must be a multiple of 16 elements (TMA), got {a.stride(0)}")
    if k > 1 and b.stride(0) != 1:
        raise InvalidArgumentError("b", f"must be column-major (the .t() of a contiguous (N, K) weight), got strides "
                                   f"{b.stride()}")
    if n > 1 and b.stride(1) % 16:
        raise InvalidArgumentError("b", f"leading dimension must be a multiple of 16 elements, got {b.stride(1)}")
    kb, nb = k // BLOCK, -(-n // BLOCK)
    if scale_a.dtype != torch.float32 or tuple(scale_a.shape) != (m, kb):
        raise InvalidArgumentError("scale_a", f"must be a float32 ({m}, {kb}) tensor (one scale per token per 128 "
                                   f"K), got {scale_a.dtype} {tuple(scale_a.shape)}")
    major = _sfa_major(scale_a, m, kb)
    if scale_b.dtype != torch.float32 or tuple(scale_b.shape) != (nb, kb):
        raise InvalidArgumentError("scale_b", f"must be a float32 ({nb}, {kb}) tensor (one scale per 128 x 128 "
                                   f"weight block), got {scale_b.dtype} {tuple(scale_b.shape)}")
    if not scale_b.is_contiguous():
        raise InvalidArgumentError("scale_b", f"must be contiguous (row-major), got strides {scale_b.stride()}")
    if bias is not None:
        bias = _tensor(bias, "bias")
        if tuple(bias.shape) != (n,) or bias.dtype != out_dtype:
            raise InvalidArgumentError("bias", f"must be a ({n},) {out_dtype} tensor, got {bias.dtype} "
                                       f"{tuple(bias.shape)}")
        if not bias.is_contiguous():
            raise InvalidArgumentError("bias", "must be contiguous")
    for t, name in ((b, "b"), (scale_a, "scale_a"), (scale_b, "scale_b"), (bias, "bias")):
        if t is not None and t.device != a.device:
            raise InvalidArgumentError(name, f"must be on {a.device} like a, got {t.device}")
    return m, n, k, major


def _sfa_major(scale_a: Tensor, m: int, kb: int) -> str:
    if scale_a.is_contiguous():  # also every (1, kb) / (m, 1) tensor: both layouts are the same memory
        return "k"
    if scale_a.stride() == (1, m):
        if m % 4:
            raise InvalidArgumentError("scale_a", f"a column-major scale_a is loaded with TMA and needs M % 4 == 0, "
                                       f"got M = {m}; pass it row-major (as quantize_per_group returns it)")
        return "mn"
    raise InvalidArgumentError("scale_a", f"must be row-major (strides ({kb}, 1)) or column-major (strides (1, {m})), "
                               f"got strides {scale_a.stride()}")


def check_pointers(a: Tensor, b: Tensor, bias: Optional[Tensor]) -> None:
    """TMA reads 16-byte aligned rows; the bias is read in 16-byte vectors (host-side pointer check)."""
    for t, name in ((a, "a"), (b, "b"), (bias, "bias")):
        if t is not None and t.data_ptr() % 16:
            raise InvalidArgumentError(name, f"data pointer must be 16-byte aligned, got {t.data_ptr():#x} (a view "
                                       f"with an offset; pass a contiguous copy)")


# ---------------------------------------------------------------------------------------- CUDA path
_sm90: Dict[int, bool] = {}


def is_sm90(dev: int) -> bool:
    """Whether device `dev` (an index) is SM90, the only GPU the family serves (cached; no raise)."""
    ok = _sm90.get(dev)
    if ok is None:
        ok = _sm90[dev] = torch.cuda.get_device_capability(dev) == (9, 0)
    return ok


def _check_device(dev: int) -> None:
    if not is_sm90(dev):
        major, minor = torch.cuda.get_device_capability(dev)
        raise UnsupportedDeviceError(f"scaled_mm_blockwise needs an SM90 GPU (H100/H200: the wgmma FP8 blockwise "
                                     f"mainloop); device {dev} is SM{major}{minor} (capability matrix in the README)")


#: (device, M, N, K, out dtype, activation, scale_a major, operand type) -> (kernel, workspace bytes): the per-call Python
#: work (config, loader lookup, a ctypes workspace query) done once per shape; eager calls at decode sizes
#: are host-bound otherwise.
_plans: Dict[tuple, tuple] = {}
_MAX_PLANS = 1 << 14  # a serving process sees many M: start over rather than grow without bound (as ops/gemm.py)


def _plan(dev, m, n, k, out_dtype, act, major, ab):
    key = (dev, m, n, k, out_dtype, act, major, ab)
    plan = _plans.get(key)
    if plan is None:
        from ..runtime import loader
        lib = loader.get_kernel(select_config(_OUT[out_dtype], m, act, major, ab, n))
        with torch.cuda.device(dev):  # the stream-K workspace is sized for this device's SMs
            plan = (lib, lib.workspace_size(m, n, k))
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        _plans[key] = plan
    return plan


def _run_cuda(a, b, scale_a, scale_b, bias, out_dtype, act, m, n, k, major) -> Tensor:
    dev = a.get_device()
    _check_device(dev)
    check_pointers(a, b, bias)
    if 0 < m <= gemv.MAX_M:
        ext = gemv_runtime.block_module()
        if ext is not None:  # decode: the block-scaled GEMV streams the weight (runtime/csrc/gemv_w8a8.cuh)
            return ext.block_gemv(a, b.t(), scale_a, scale_b, bias, out_dtype, BLOCK, 7, activations.EXT_CODES[act])
    if m == 0:
        return torch.empty((m, n), dtype=out_dtype, device=a.device)
    rows = op_padded_rows(m, "e4m3", n, k) if rowpad.enabled() else m
    if rows > m:
        a, scale_a = _pad(a, scale_a, major, rows)
    if major == "k" and relayout_sfa(rows, k):  # the TMA-loaded layout, worth its copy at deep K (kernels/blockwise.py)
        scale_a, major = scale_a.t().contiguous().t(), "mn"
    out = launch(a, b.stride(1) if n > 1 else k, b, scale_a, scale_b, bias, out_dtype, act, rows, n, k, major, "e4m3")
    return out[:m] if rows > m else out  # whole rows of a contiguous (rows, n) tensor: contiguous


def _pad(a: Tensor, scale_a: Tensor, major: str, rows: int) -> Tuple[Tensor, Tensor]:
    """a and scale_a copied into `rows` rows, zero past M, scale_a in its own layout (one launch; runtime/rowpad.py):
    a mostly empty last M tile costs the load-bound fp8 kernel up to 1.8x (blockwise_heuristics.op_padded_rows)."""
    a_p = torch.empty((rows, a.shape[1]), dtype=a.dtype, device=a.device)
    if major == "mn":  # column-major: its transpose is row-major, padded along its columns
        sa_t = torch.empty((scale_a.shape[1], rows), dtype=scale_a.dtype, device=a.device)
        rowpad.pad_into([(a, a_p), (scale_a.t(), sa_t)])
        return a_p, sa_t.t()
    sa_p = torch.empty((rows, scale_a.shape[1]), dtype=scale_a.dtype, device=a.device)
    rowpad.pad_into([(a, a_p), (scale_a, sa_p)])
    return a_p, sa_p


def launch(a: Tensor, ldb: int, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor],
           out_dtype: torch.dtype, act: str, m: int, n: int, k: int, major: str, ab: str) -> Tensor:
    """Run the family's kernel for the call (select_config) on the current stream: the caller checked every
    argument, layout and pointer; b's K-contiguous rows are ldb elements apart (the fp8 op's (K, N) column-major
    operand, the int8 op's (N, K) row-major one). Returns the (m, n) output."""
    dev = a.get_device()
    out = torch.empty((m, n), dtype=out_dtype, device=a.device)
    lib, ws_bytes = _plan(dev, m, n, k, out_dtype, act, major, ab)
    ws = torch.empty(max(ws_bytes, 1), dtype=torch.uint8, device=a.device)
    lda = a.stride(0) if m > 1 else k
    args = (a.data_ptr(), b.data_ptr(), out.data_ptr(), scale_a.data_ptr(), scale_b.data_ptr(),
            None if bias is None else bias.data_ptr(), m, n, k, lda, ldb, n,
            ws.data_ptr(), ws_bytes, torch.cuda.current_stream(dev).cuda_stream)
    if dev == torch.cuda.current_device():  # the launcher reads the current device: skip the context (~10 us)
        lib.launch(*args)
    else:
        with torch.cuda.device(dev):
            lib.launch(*args)
    return out


def _impl(a, b, scale_a, scale_b, bias=None, out_dtype=None, activation=None):
    out_dtype = torch.bfloat16 if out_dtype is None else out_dtype
    act = activations.canonical(activation)
    m, n, k, major = validate(a, b, scale_a, scale_b, bias, out_dtype)
    if a.is_cuda:
        return _run_cuda(a, b, scale_a, scale_b, bias, out_dtype, act, m, n, k, major)
    return blockwise_reference(a, b, scale_a, scale_b, out_dtype, bias, act)


# ---------------------------------------------------------------------------------------- registration
_OP = define_op("scaled_mm_blockwise(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, Tensor? bias=None, "
                "ScalarType? out_dtype=None, str? activation=None) -> Tensor", _impl)  # out_dtype None: bfloat16


@torch.library.register_fake(_OP)
def _fake(a, b, scale_a, scale_b, bias=None, out_dtype=None, activation=None):
    out_dtype = torch.bfloat16 if out_dtype is None else out_dtype
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, bias, out_dtype)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


def scaled_mm_blockwise(a: Tensor, b: Tensor, scale_a: Tensor, scale_b: Tensor, bias: Optional[Tensor] = None,
                        out_dtype: torch.dtype = torch.bfloat16, activation: Optional[str] = None) -> Tensor:
    """act(blockwise-scaled a @ b + bias) in out_dtype (see the module docstring for layouts). Typed errors
    before any kernel runs."""
    from .gemm import _eager_direct
    if _eager_direct(a):  # plain eager tensors skip the dispatcher round trip (the same implementation)
        return _impl(a, b, scale_a, scale_b, bias, out_dtype, activation)
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, bias, out_dtype)
    return torch.ops.cutlass_gemm.scaled_mm_blockwise(a, b, scale_a, scale_b, bias, out_dtype, activation)
