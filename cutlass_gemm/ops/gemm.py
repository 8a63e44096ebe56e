"""PyTorch ops `cutlass_gemm::scaled_mm` and `cutlass_gemm::scaled_mm_azp` (torch.library).

    scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None, activation=None)            -> (M, N)
    scaled_mm_azp(a, b, scale_a, scale_b, out_dtype, azp_adj, azp=None, bias=None, activation=None) -> (M, N)

    out = act(scale_a * scale_b * (a @ b - azp * azp_adj) + bias)

`a` is int8 (M, K) row-major; `b` is int8 (K, N) column-major (the `.t()` of a contiguous (N, K)
weight); scales are float32 scalars (one element) or (M, 1) / (1, N) vectors; `bias` (N,) in the
output dtype; `azp_adj` int32 (N,): the column sums of the weight, or, when `azp` is None (per-tensor
zero point), the precomputed azp * column sums; `azp` int32 (M,) per-token zero points.
`activation`: None, "relu", "relu6" (clamp to [0, 6]), "gelu_tanh" (GELU, tanh approximation) or "silu",
applied in float32 to the scaled, biased value before the conversion to out_dtype (the kernels do it
in the EVT epilogue; the CPU reference rounds its float64 value to float32 and applies the torch
function). A zero-point call without a bias runs a kernel that has no bias input.
`scaled_mm_out` / `scaled_mm_azp_out` write into a given (M, N) tensor `out` (first argument).

CUDA tensors run the CUTLASS kernels on the current stream of the tensors' device (at M <= 16 on SM90, the
extension's W8A8 GEMV where `heuristics.GEMV` says: kernels/gemv.py); CPU tensors run a float64 reference (slow,
for tests and CPU-only code). On SM90 a call whose last M tile would be mostly empty runs on its operands copied into
whole tiles (`heuristics.op_padded_rows`, runtime/rowpad.py; one extra launch): the kernel computes the padded rows
and writes the output's M only (into `out` as into a new tensor); CUTLASS_GEMM_PAD_ROWS=0 turns that off. Every
argument is validated before any launch (InvalidArgumentError naming it).
"""
from __future__ import annotations

from typing import Dict, Tuple

import torch

from ..kernels import activations, heuristics
from ..kernels.epilogues import SCALE_A_SCALAR, SCALE_B_SCALAR
from ..kernels.gemv import GemvConfig
from ..runtime import autotune, fastpath, gemv, loader, rowpad
from ..errors import KernelNotBuiltError, UnsupportedDeviceError, warn_user
# the checks live in _gemm_args.py; K_ALIGN, N_ALIGN, SIZE_LIMIT and the checks stay importable from here
from ._gemm_args import (K_ALIGN, N_ALIGN, SIZE_LIMIT, _IN_NAMES, _OUT_NAMES, _fast_layout, _overlap,  # noqa: F401
                         check_pointers, validate)
from ._gemm_launch import _as_vector, _launch_args, _run_padded, workspace_for  # noqa: F401 (tests import them here)
from ._gemm_reference import reference  # the CPU path; importable from here as before
from ._registry import define_op


# ---------------------------------------------------------------------------------------- CUDA path
_device_sm: Dict[int, int] = {}
_selected: Dict[tuple, Tuple[loader.KernelLibrary, str, str]] = {}


_fast_ready = None  # the C++ fast path module once loaded (see fastpath.py)


def kernel_sm(device_index: int) -> int:
    """The kernel SM of a device: 90 on 9.0; 89 on 8.9 (its fp8 kernels; int8 takes the SM80 family there,
    heuristics.family_sm); 80 on the other 8.x."""
    sm = _device_sm.get(device_index)
    if sm is None:
        major, minor = torch.cuda.get_device_capability(device_index)
        if major == 9 and minor == 0:
            sm = 90
        elif (major, minor) == (8, 9):
            sm = 89
        elif major == 8:
            sm = 80  # sm_80 machine code runs on every 8.x GPU
        else:
            raise UnsupportedDeviceError(f"cutlass_gemm has no kernels for SM{major}{minor} "
                                         f"(device {device_index}); supported: SM80-SM89 and SM90")
        _device_sm[device_index] = sm
    return sm


class SchedulerFallbackWarning(UserWarning):
    """A kernel a SPLIT row of the heuristics chose (stream-K / split-K, or another tile) is not built and cannot
    be built now (CUTLASS_GEMM_JIT=0, or no nvcc: e.g. a prebuilt kernel package, which holds no such kernel);
    the SELECTION / NARROW tile serves the call instead. Said once per kernel and call kind."""


#: select_kernel keys whose stream-K / split-K kernel could not be had (not asked again in this process)
_split_unavailable: set = set()


def select_kernel(sm: int, variant: str, a_dtype: str, out_dtype: str, sa: str, sb: str, m: int, choice=None,
                  activation: str = "none", n: int = 0, k: int = 0):
    """(kernel, scale_a kind it takes, scale_b kind it takes) for a problem; memoised per tile.

    A kernel built for the call's scale kinds is used when it is in the default set or the cache;
    otherwise the per-token/per-channel kernel serves: on SM90 it broadcasts a per-tensor scale itself (a
    dynamic stride in its epilogue), on SM80 the scalar is first expanded to a vector (a copy). A stream-K /
    split-K choice of the table that cannot be had falls back to the data-parallel tile, with a
    SchedulerFallbackWarning. `sm` may be a device's kernel SM: heuristics.family_sm maps it to the family that serves
    `a_dtype` (int8 on SM89: SM80's)."""
    sm = heuristics.family_sm(sm, a_dtype)
    if choice is None:
        choice = heuristics.choose_tile(sm, m, n, a_dtype, k)
        table = heuristics.choose_tile(sm, m, n, "", k)  # without the input type: no SPLIT row applies
        if choice != table:  # a SPLIT row's kernel: not prebuilt, so it may be unavailable (JIT off)
            split_key = (sm, variant, a_dtype, out_dtype, sa, sb, choice, activation)
            if split_key not in _split_unavailable:
                try:
                    return select_kernel(sm, variant, a_dtype, out_dtype, sa, sb, m, choice, activation, n, k)
                except KernelNotBuiltError as exc:
                    _split_unavailable.add(split_key)
                    warn_user(f"{exc}; the table's tile serves such problems instead",
                              SchedulerFallbackWarning)
            choice = table
    if a_dtype == "e4m3" and sm < 89:
        raise UnsupportedDeviceError(f"fp8 (float8_e4m3fn) GEMMs need SM89+ kernels (fp8 mma); this device runs the "
                                     f"SM{sm} kernel family, which serves int8 only (capability matrix in the README)")
    key = (sm, variant, a_dtype, out_dtype, sa, sb, choice, activation)
    hit = _selected.get(key)
    if hit is not None:
        return hit
    exact = heuristics.make_config(sm, variant, out_dtype, choice, a_dtype=a_dtype, scale_a=sa, scale_b=sb,
                                   activation=activation)
    lib = loader.cached_kernel(exact)
    if lib is None and heuristics.in_default_set(exact):
        lib = loader.get_kernel(exact)
    if lib is not None:
        hit = (lib, sa, sb)
    else:
        vec = exact.replace(scale_a="token", scale_b="channel")
        hit = (loader.get_kernel(vec), "token", "channel")
    _selected[key] = hit
    return hit


_plans: Dict[tuple, tuple] = {}
_MAX_PLANS = 1 << 14


def _autotuned_choice(dev, sm, variant, a_dtype, out_dtype, sa, sb, m, n, k, timing_args):
    """Opt-in (CUTLASS_GEMM_AUTOTUNE=1): time every default tile once on this call's tensors and
    remember the fastest on disk for (variant, dtypes, M rounded up to a power of two, N, K). Timed
    with the variant's plain kernels: a call with an activation takes the tile of its plain variant."""
    if torch.cuda.is_current_stream_capturing():
        return None  # never time inside a CUDA graph capture; the table serves
    a, b, scale_a, scale_b, bias, azp_adj, azp, out = timing_args

    def time_candidate(choice):
        cfg = heuristics.make_config(sm, variant, _OUT_NAMES[out_dtype], choice, a_dtype=_IN_NAMES[a_dtype])
        lib = loader.get_kernel(cfg.replace(scale_a="token", scale_b="channel"))
        expand_a, expand_b, flags = _scale_handling(lib, sa, sb, "token", "channel")
        ptrs = _launch_args(variant, a, b, _as_vector(scale_a, expand_a, m, 1), _as_vector(scale_b, expand_b, 1, n),
                            bias, azp_adj, azp, out, m, n, k, dev, scale_flags=flags)
        return autotune.time_gpu_us(lambda: lib.launch(*ptrs))

    return autotune.get_autotuner().best(
        autotune.current_device_key(dev), variant, _IN_NAMES[a_dtype], _OUT_NAMES[out_dtype],
        autotune.bucket_m(m), n, k, autotune.default_candidates(sm), time_candidate)


def _scale_handling(lib, sa: str, sb: str, want_a: str, want_b: str) -> Tuple[bool, bool, int]:
    """(expand scale_a?, expand scale_b?, scale_flags) when a call with scale kinds (sa, sb) runs a kernel built
    for (want_a, want_b): a per-tensor scale given to a vector kernel is broadcast by the kernel where it can
    (lib.scalar_scales_served: SM90 kernels and the GEMV), else expanded to a vector first (SM80)."""
    served = lib.scalar_scales_served
    flags = (SCALE_A_SCALAR if want_a != sa else 0) | (SCALE_B_SCALAR if want_b != sb else 0)
    expand = flags & ~served
    return bool(expand & SCALE_A_SCALAR), bool(expand & SCALE_B_SCALAR), flags & served


def plan_key(dev: int, variant: str, a_dtype: torch.dtype, out_dtype: torch.dtype, sa: str, sb: str, m: int, n: int,
             k: int, activation: str = "none") -> tuple:
    """A call's key in `_plans` (tests look plans up by it); N and K in it: tiles depend on them (heuristics.WAVES)."""
    return (dev, variant, activation, a_dtype, out_dtype, _row_scale_a(m, sa, sb), sb, m, n, k)


def _row_scale_a(m: int, sa: str, sb: str) -> str:
    """One row with a per-tensor scale_a plans as per-token: its per-token scale is the scalar, which the prebuilt
    kernels take."""
    return "token" if m == 1 and sa == "tensor" and sb == "channel" else sa


def _plan(dev, variant, a_dtype, out_dtype, sa, sb, m, n=0, k=0, timing_args=None, activation="none"):
    """(ctypes launch function, kernel, expand scale_a?, expand scale_b?, needs a workspace?, scale_flags, rows) for a
    call; memoised. `rows` > m: the kernel runs on the call's operands copied into that many rows (whole M tiles,
    heuristics.op_padded_rows; runtime/rowpad.py); not with an autotuned tile, which was timed unpadded. Stream-K /
    split-K kernels (heuristics.SPLIT) need a workspace, whose size depends on K too: it is asked of the kernel on
    every call (a host computation, no device call) and taken from torch's caching allocator on the current stream
    (so it is CUDA-graph safe and never a cudaMalloc per call)."""
    sa = _row_scale_a(m, sa, sb)
    key = plan_key(dev, variant, a_dtype, out_dtype, sa, sb, m, n, k, activation)
    tuned = autotune.enabled()
    plan = _plans.get(key)
    if plan is None:
        sm = heuristics.family_sm(kernel_sm(dev), _IN_NAMES[a_dtype])
        choice = None
        if tuned and timing_args is not None:
            choice = _autotuned_choice(dev, sm, variant, a_dtype, out_dtype, sa, sb, m, n, k, timing_args)
        lib = None
        if choice is None and heuristics.gemv_serves(sm, m, n, _IN_NAMES[a_dtype], variant, activation):
            # decode M: the extension's GEMV (it reads scalar scales itself: nothing to broadcast)
            lib = gemv.kernel(GemvConfig(_IN_NAMES[a_dtype], _OUT_NAMES[out_dtype], sa, sb))
            want_a, want_b = sa, sb
        rows = m
        if lib is None:
            if choice is None and rowpad.enabled():
                rows = heuristics.op_padded_rows(sm, m, n, _IN_NAMES[a_dtype], variant, activation, k)
            lib, want_a, want_b = select_kernel(sm, variant, _IN_NAMES[a_dtype], _OUT_NAMES[out_dtype], sa, sb, rows,
                                                choice=choice, activation=activation, n=n, k=k)
        needs_workspace = lib.config.scheduler != "persistent"  # persistent kernels never need one
        expand_a, expand_b, flags = _scale_handling(lib, sa, sb, want_a, want_b)
        if expand_a or expand_b:
            rows = m  # (SM80 only, which never pads)
        plan = (lib._launch, lib, expand_a, expand_b, needs_workspace, flags, rows)
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        _plans[key] = plan
        fast = None if tuned else fastpath.module()  # autotuned calls stay on this path (their timing is here)
        if fast is not None:  # teach the C++ fast path this plan; later calls skip Python entirely
            fast.register_plan(dev, fastpath.CODES[variant, activation], a_dtype, out_dtype, sa == "token",
                               sb == "channel", m, n, k, lib.function_address, plan[2], plan[3],
                               lib.workspace_address if needs_workspace else 0, flags, rows if rows > m else 0)
    return plan


def _run_cuda(variant, a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out, M, N, K, sa, sb, act):
    dev = a.get_device()
    if out is None:
        out = torch.empty((M, N), dtype=out_dtype, device=a.device)
    if M == 0 or N == 0:
        return out
    if K == 0:  # nothing for the tensor cores to do; the epilogue alone is cheap in torch
        out.copy_(reference(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, act))
        return out
    if torch._C._cuda_getDevice() != dev:
        with torch.cuda.device(dev):
            return _run_cuda(variant, a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out, M, N, K, sa, sb, act)
    global _fast_ready
    if _fast_ready is None:
        _fast_ready = fastpath.module() or False
    launch, lib, expand_a, expand_b, needs_ws, flags, rows = _plan(dev, variant, a.dtype, out_dtype, sa, sb, M, N, K,
                                                                   (a, b, scale_a, scale_b, bias, azp_adj, azp, out), act)
    if rows > M:
        return _run_padded(launch, lib, needs_ws, flags, variant, a, b, scale_a, scale_b, bias, azp_adj, azp, out, M, N,
                           K, rows, sa, dev)
    ws = workspace_for(lib, M, N, K, a.device) if needs_ws else (None, None, 0)
    rc = launch(*_launch_args(variant, a, b, _as_vector(scale_a, expand_a, M, 1), _as_vector(scale_b, expand_b, 1, N),
                              bias, azp_adj, azp, out, M, N, K, dev, ws, flags))
    if rc:
        lib.raise_launch_error(rc, M, N, K)
    return out


def _azp_ok(azp_adj, azp, M, N, dev, out=None) -> bool:
    return (type(azp_adj) is torch.Tensor and azp_adj.dtype is torch.int32 and azp_adj.shape in ((N,), (1, N))
            and azp_adj.is_contiguous() and azp_adj.device == dev
            and (azp is None or (type(azp) is torch.Tensor and azp.dtype is torch.int32
                                 and azp.shape in ((M,), (M, 1)) and azp.is_contiguous() and azp.device == dev))
            and (out is None or not _overlap(out, (("azp_adj", azp_adj), ("azp", azp)))))


def _dispatch(variant, a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out, activation=None):
    act = "none" if activation is None else activations.canonical(activation)
    if _fast_ready and type(a) is torch.Tensor and type(scale_a) is torch.Tensor \
            and type(scale_b) is torch.Tensor and a.is_cuda and not autotune.enabled():
        # (autotuned plans depend on (M, N, K); the fast path's registry is keyed by M, so it stands aside)
        try:
            res = _fast_ready.run(fastpath.CODES[variant, act], a, b, scale_a, scale_b, out_dtype, bias,
                                  azp_adj, azp, out)
        except TypeError:  # an argument pybind cannot convert: let validation name it
            res = None
        if type(res) is torch.Tensor:
            return res
        # None: not a call the fast path takes (or no plan yet); an int: the launcher failed, and the
        # Python path below repeats the call to raise KernelLaunchError with the launcher's message.
    with_azp = azp_adj is not None or variant.startswith("scaled_azp")
    fast = _fast_layout(a, b, scale_a, scale_b, out_dtype, bias, out)
    if fast is not None and with_azp and not (a.dtype is torch.int8
                                             and _azp_ok(azp_adj, azp, fast[0], fast[1], a.device, out)):
        fast = None
    if fast is None:
        fast = validate(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out, with_azp=with_azp)
        if a.device.type == "cuda":
            check_pointers(a, b, out)
    M, N, K, sa, sb = fast
    if a.device.type == "cuda":
        return _run_cuda(variant, a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out, M, N, K, sa, sb, act)
    res = reference(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, act)
    if out is None:
        return res
    out.copy_(res)
    return out


def _variant(bias, azp_adj=None, azp=None, with_azp=False) -> str:
    if with_azp:  # without a bias, the zero-point kernels that have no bias input
        return ("scaled_azp" if azp is None else "scaled_azp_per_token") + ("" if bias is not None else "_nobias")
    return "scaled" if bias is None else "scaled_bias"


# ---------------------------------------------------------------------------------------- registration
_SIG = "Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, ScalarType out_dtype"
_ACT = "str? activation=None"


def _scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None, activation=None):
    return _dispatch(_variant(bias), a, b, scale_a, scale_b, out_dtype, bias, None, None, None, activation)


def _scaled_mm_out(out, a, b, scale_a, scale_b, out_dtype, bias=None, activation=None):
    _dispatch(_variant(bias), a, b, scale_a, scale_b, out_dtype, bias, None, None, out, activation)


def _scaled_mm_azp(a, b, scale_a, scale_b, out_dtype, azp_adj, azp=None, bias=None, activation=None):
    return _dispatch(_variant(bias, azp_adj, azp, True), a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, None,
                     activation)


def _scaled_mm_azp_out(out, a, b, scale_a, scale_b, out_dtype, azp_adj, azp=None, bias=None, activation=None):
    _dispatch(_variant(bias, azp_adj, azp, True), a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out,
              activation)


_MM = define_op(f"scaled_mm({_SIG}, Tensor? bias=None, {_ACT}) -> Tensor", _scaled_mm)
_MM_OUT = define_op(f"scaled_mm_out(Tensor(a!) out, {_SIG}, Tensor? bias=None, {_ACT}) -> ()", _scaled_mm_out)
_AZP = define_op(f"scaled_mm_azp({_SIG}, Tensor azp_adj, Tensor? azp=None, Tensor? bias=None, {_ACT}) -> Tensor",
                 _scaled_mm_azp)
_AZP_OUT = define_op(f"scaled_mm_azp_out(Tensor(a!) out, {_SIG}, Tensor azp_adj, Tensor? azp=None, Tensor? bias=None, "
                     f"{_ACT}) -> ()", _scaled_mm_azp_out)


@torch.library.register_fake(_MM)
def _scaled_mm_fake(a, b, scale_a, scale_b, out_dtype, bias=None, activation=None):
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, out_dtype, bias)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


@torch.library.register_fake(_AZP)
def _scaled_mm_azp_fake(a, b, scale_a, scale_b, out_dtype, azp_adj, azp=None, bias=None, activation=None):
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, with_azp=True)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


@torch.library.register_fake(_MM_OUT)
def _scaled_mm_out_fake(out, a, b, scale_a, scale_b, out_dtype, bias=None, activation=None):
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, out_dtype, bias, out=out)


@torch.library.register_fake(_AZP_OUT)
def _scaled_mm_azp_out_fake(out, a, b, scale_a, scale_b, out_dtype, azp_adj, azp=None, bias=None, activation=None):
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out, with_azp=True)


# ---------------------------------------------------------------------------------------- public API
def _eager_direct(a) -> bool:
    """Plain tensors outside torch.compile, dispatch modes and torch-function modes may skip the
    dispatcher round trip (about 5-10 us) and call the same implementation directly."""
    return (not torch.compiler.is_compiling() and type(a) is torch.Tensor
            and not torch._C._len_torch_dispatch_stack() and not torch._C._is_torch_function_mode_enabled())


def scaled_mm(a, b, scale_a, scale_b, out_dtype, bias=None, out=None, activation=None):
    """out = act(scale_a * scale_b * (a @ b) + bias). See the module docstring for layouts and `activation`."""
    if _eager_direct(a):
        return _dispatch(_variant(bias), a, b, scale_a, scale_b, out_dtype, bias, None, None, out, activation)
    activations.canonical(activation)  # named before tracing goes any further
    if out is None:
        return torch.ops.cutlass_gemm.scaled_mm.default(a, b, scale_a, scale_b, out_dtype, bias, activation)
    torch.ops.cutlass_gemm.scaled_mm_out(out, a, b, scale_a, scale_b, out_dtype, bias, activation)
    return out


def scaled_mm_azp(a, b, scale_a, scale_b, out_dtype, azp_adj, azp=None, bias=None, out=None, activation=None):
    """out = act(scale_a * scale_b * (a @ b - azp * azp_adj) + bias) (azp None: azp_adj holds azp*colsum)."""
    if _eager_direct(a):
        return _dispatch(_variant(bias, azp_adj, azp, True), a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp,
                         out, activation)
    activations.canonical(activation)
    if out is None:
        return torch.ops.cutlass_gemm.scaled_mm_azp.default(a, b, scale_a, scale_b, out_dtype, azp_adj, azp, bias,
                                                            activation)
    torch.ops.cutlass_gemm.scaled_mm_azp_out(out, a, b, scale_a, scale_b, out_dtype, azp_adj, azp, bias, activation)
    return out
