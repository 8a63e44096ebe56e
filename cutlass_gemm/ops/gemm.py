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

CUDA tensors run the CUTLASS kernels on the current stream of the tensors' device; CPU tensors run
a float64 reference (slow, for tests and CPU-only code). Every argument is validated before any
launch; problems raise InvalidArgumentError naming the argument.
"""
from __future__ import annotations

import math
from typing import Dict, Tuple

import torch

from ..kernels import activations, heuristics
from ..runtime import autotune, fastpath, loader
from ..errors import InvalidArgumentError, UnsupportedDeviceError

_OUT_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16"}
_IN_NAMES = {torch.int8: "int8"}
if hasattr(torch, "float8_e4m3fn"):
    _IN_NAMES[torch.float8_e4m3fn] = "e4m3"

# Kernels take 16-byte aligned rows: K (A and B rows) in 16 one-byte elements, N (D rows) in 8 halves.
K_ALIGN = 16
N_ALIGN = 8
#: The launchers take M, N, K as 32-bit ints (CUTLASS problem shapes) and leading dimensions in int32 range.
SIZE_LIMIT = 1 << 31
_LIMIT_TEXT = "M, N, K and the leading dimensions must be < 2^31 (the kernels index with 32-bit ints)"


# ---------------------------------------------------------------------------------------- validation
def _vector_kind(t, name: str, length: int, dtype, scalar_kind: str, vector_kind: str, vector_shapes):
    if not isinstance(t, torch.Tensor):
        raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype != dtype:
        raise InvalidArgumentError(name, f"must be {dtype}, got {t.dtype}")
    if t.dim() <= 2 and math.prod(t.shape) == 1:  # prod, not numel(): works on symbolic shapes
        return scalar_kind
    if tuple(t.shape) not in vector_shapes:
        raise InvalidArgumentError(name, f"must have one element or shape {' or '.join(map(str, vector_shapes))} "
                                         f"(length {length}), got {tuple(t.shape)}")
    if not t.is_contiguous():
        raise InvalidArgumentError(name, "must be contiguous")
    return vector_kind


def _same_device(t, name: str, device) -> None:
    if t.device != device:
        raise InvalidArgumentError(name, f"must be on {device} like `a`, got {t.device}")


def _span(t):
    """(first byte, one past the last byte) a real tensor can touch; None for empty, meta or fake ones."""
    if t is None:
        return None
    try:
        if type(t) is not torch.Tensor and _is_traced(t):
            return None
        start = t.data_ptr()
        if start == 0 or t.device.type == "meta" or t.numel() == 0:
            return None
        extent = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))
    except Exception:  # FakeTensor / functional tensors under tracing have no data
        return None
    return start, start + extent * t.element_size()


def _is_traced(t) -> bool:
    from torch._subclasses.fake_tensor import is_fake
    from torch._subclasses.functional_tensor import FunctionalTensor
    return is_fake(t) or isinstance(t, FunctionalTensor)


def _overlap(out, inputs) -> str:
    """Name of the first input whose memory overlaps `out` ("" when none does)."""
    o = _span(out)
    if o is None:
        return ""
    for name, t in inputs:
        s = _span(t)
        if s is not None and s[0] < o[1] and o[0] < s[1]:
            return name
    return ""


def _check_size(name: str, what: str, value) -> None:
    if value >= SIZE_LIMIT:
        raise InvalidArgumentError(name, f"{what} = {value} is too large: {_LIMIT_TEXT}")


def validate(a, b, scale_a, scale_b, out_dtype, bias=None, azp_adj=None, azp=None, out=None,
             *, with_azp: bool = False) -> Tuple[int, int, int, str, str]:
    """Check every argument; returns (M, N, K, scale_a kind, scale_b kind)."""
    for name, t in (("a", a), ("b", b)):
        if not isinstance(t, torch.Tensor):
            raise InvalidArgumentError(name, f"must be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 2:
            raise InvalidArgumentError(name, f"must be 2-D, got {t.dim()}-D shape {tuple(t.shape)}")
    if a.dtype not in _IN_NAMES:
        raise InvalidArgumentError("a", f"dtype must be one of {list(_IN_NAMES)}, got {a.dtype}")
    if b.dtype != a.dtype:
        raise InvalidArgumentError("b", f"dtype must match a ({a.dtype}), got {b.dtype}")
    if with_azp and a.dtype != torch.int8:
        raise InvalidArgumentError("a", f"zero-point GEMMs take int8, got {a.dtype}")
    if out_dtype not in _OUT_NAMES:
        raise InvalidArgumentError("out_dtype", f"must be torch.bfloat16 or torch.float16, got {out_dtype}")
    M, K = a.shape
    if b.shape[0] != K:
        raise InvalidArgumentError("b", f"must be (K, N) with K = a.shape[1] = {K}, got {tuple(b.shape)}")
    N = b.shape[1]
    _check_size("a", "M", M)
    _check_size("a", "K", K)
    _check_size("b", "N", N)
    device = a.device
    _same_device(b, "b", device)
    # K == 0: nothing to multiply (torch.empty(M, 0) has strides (1, 1)); the result is the epilogue alone.
    if K > 0 and (a.stride(1) != 1 or (M > 1 and a.stride(0) < K)):
        raise InvalidArgumentError("a", f"must be row-major (stride (lda, 1)), got strides {a.stride()}")
    if K > 0 and (b.stride(0) != 1 or (N > 1 and b.stride(1) < K)):
        raise InvalidArgumentError("b", f"must be column-major, i.e. the .t() of a contiguous (N, K) "
                                        f"weight (strides (1, ldb)), got strides {b.stride()}")
    if K % K_ALIGN:
        raise InvalidArgumentError("a", f"K = {K} must be a multiple of {K_ALIGN} (16-byte rows for the tensor "
                                        f"cores); pad K with zeros in both a and b")
    if N % N_ALIGN:
        raise InvalidArgumentError("b", f"N = {N} must be a multiple of {N_ALIGN} (16-byte output rows); "
                                        f"pad the weight with zero rows")
    if K > 0 and M > 1:
        if a.stride(0) % K_ALIGN:
            raise InvalidArgumentError("a", f"leading dimension {a.stride(0)} must be a multiple of {K_ALIGN}")
        _check_size("a", "the leading dimension", a.stride(0))
    if K > 0 and N > 1:
        if b.stride(1) % K_ALIGN:
            raise InvalidArgumentError("b", f"leading dimension {b.stride(1)} must be a multiple of {K_ALIGN}")
        _check_size("b", "the leading dimension", b.stride(1))
    sa = _vector_kind(scale_a, "scale_a", M, torch.float32, "tensor", "token", [(M, 1), (M,)])
    sb = _vector_kind(scale_b, "scale_b", N, torch.float32, "tensor", "channel", [(1, N), (N,)])
    _same_device(scale_a, "scale_a", device)
    _same_device(scale_b, "scale_b", device)
    if bias is not None:
        if not isinstance(bias, torch.Tensor) or tuple(bias.shape) not in ((N,), (1, N)):
            raise InvalidArgumentError("bias", f"must have shape ({N},), got "
                                               f"{tuple(bias.shape) if isinstance(bias, torch.Tensor) else bias}")
        if bias.dtype != out_dtype:
            raise InvalidArgumentError("bias", f"dtype must be the output dtype {out_dtype}, got {bias.dtype}")
        if not bias.is_contiguous():
            raise InvalidArgumentError("bias", "must be contiguous")
        _same_device(bias, "bias", device)
    if with_azp:
        if not isinstance(azp_adj, torch.Tensor) or azp_adj.dtype != torch.int32 \
                or tuple(azp_adj.shape) not in ((N,), (1, N)) or not azp_adj.is_contiguous():
            raise InvalidArgumentError("azp_adj", f"must be a contiguous int32 tensor of shape ({N},), got "
                                                  f"{_describe(azp_adj)}")
        _same_device(azp_adj, "azp_adj", device)
        if azp is not None:
            if not isinstance(azp, torch.Tensor) or azp.dtype != torch.int32 \
                    or tuple(azp.shape) not in ((M,), (M, 1)) or not azp.is_contiguous():
                raise InvalidArgumentError("azp", f"must be a contiguous int32 tensor of shape ({M},), got "
                                                  f"{_describe(azp)}")
            _same_device(azp, "azp", device)
    if out is not None:
        if not isinstance(out, torch.Tensor) or tuple(out.shape) != (M, N) or out.dtype != out_dtype:
            raise InvalidArgumentError("out", f"must be a ({M}, {N}) {out_dtype} tensor, got {_describe(out)}")
        _same_device(out, "out", device)
        if out.stride(1) != 1 or (M > 1 and (out.stride(0) < N or out.stride(0) % N_ALIGN)):
            raise InvalidArgumentError("out", f"must be row-major with a leading dimension that is a multiple of "
                                              f"{N_ALIGN} and a 16-byte aligned pointer, got strides {out.stride()}")
        if M > 1:
            _check_size("out", "the leading dimension", out.stride(0))
        clash = _overlap(out, (("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias),
                               ("azp_adj", azp_adj), ("azp", azp)))
        if clash:
            raise InvalidArgumentError("out", f"overlaps the memory of `{clash}`; the kernel would read what it "
                                              f"writes: pass a separate output tensor")
    return M, N, K, sa, sb


_F32 = torch.float32


def _fast_layout(a, b, scale_a, scale_b, out_dtype, bias, out):
    """Accept the common, valid case cheaply: (M, N, K, scale_a kind, scale_b kind) or None.

    None means "not obviously valid": `validate` then either raises the precise error or accepts an
    unusual valid layout. Every condition here is one `validate` also enforces."""
    if type(a) is not torch.Tensor or type(b) is not torch.Tensor or type(scale_a) is not torch.Tensor \
            or type(scale_b) is not torch.Tensor:
        return None
    dt = a.dtype
    if dt not in _IN_NAMES or b.dtype is not dt or out_dtype not in _OUT_NAMES:
        return None
    sa_, sb_ = a.stride(), b.stride()
    if len(sa_) != 2 or len(sb_) != 2 or sa_[1] != 1 or sb_[0] != 1:
        return None
    M, K = a.shape
    K2, N = b.shape
    lda, ldb = sa_[0], sb_[1]
    if K2 != K or K == 0 or K % 16 or N % 8 or ldb < K or ldb % 16 or (M > 1 and (lda < K or lda % 16)):
        return None
    if M >= SIZE_LIMIT or N >= SIZE_LIMIT or K >= SIZE_LIMIT or lda >= SIZE_LIMIT or ldb >= SIZE_LIMIT:
        return None
    dev = a.device  # (not get_device(): it is -1 for both CPU and meta)
    if b.device != dev or scale_a.device != dev or scale_b.device != dev \
            or scale_a.dtype is not _F32 or scale_b.dtype is not _F32:
        return None
    if scale_a.numel() == 1:
        sa = "tensor" if scale_a.dim() <= 2 else None
    else:
        sa = "token" if scale_a.shape in ((M, 1), (M,)) and scale_a.is_contiguous() else None
    if scale_b.numel() == 1:
        sb = "tensor" if scale_b.dim() <= 2 else None
    else:
        sb = "channel" if scale_b.shape in ((1, N), (N,)) and scale_b.is_contiguous() else None
    if sa is None or sb is None:
        return None
    if bias is not None and (type(bias) is not torch.Tensor or bias.dtype is not out_dtype
                             or bias.shape not in ((N,), (1, N)) or not bias.is_contiguous()
                             or bias.device != dev):
        return None
    if out is not None:
        if type(out) is not torch.Tensor or out.dtype is not out_dtype or out.shape != (M, N) \
                or out.device != dev:
            return None
        so = out.stride()
        if so[1] != 1 or (M > 1 and (so[0] < N or so[0] % 8 or so[0] >= SIZE_LIMIT)):
            return None
        if _overlap(out, (("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias))):
            return None
    if a.is_cuda and ((a.data_ptr() | b.data_ptr() | (0 if out is None else out.data_ptr())) & 15):
        return None
    return M, N, K, sa, sb


def check_pointers(a, b, out=None) -> None:
    """16-byte aligned data pointers, which TMA and 128-bit loads need (real tensors only)."""
    for name, t in (("a", a), ("b", b), ("out", out)):
        if t is not None and t.data_ptr() % 16:
            raise InvalidArgumentError(name, "data pointer must be 16-byte aligned (slice offsets break this)")


def _describe(t) -> str:
    if isinstance(t, torch.Tensor):
        return f"{t.dtype} {tuple(t.shape)} strides {t.stride()} on {t.device}"
    return repr(t)


# ---------------------------------------------------------------------------------------- reference
def reference(a, b, scale_a, scale_b, out_dtype, bias=None, azp_adj=None, azp=None,
              activation: str = "none") -> torch.Tensor:
    """float64 evaluation of the epilogue formula, rounded once to out_dtype (the CPU path). With an
    activation, as the kernels compute it: the value is rounded to float32, the activation applied in
    float32, and the result rounded to out_dtype."""
    M, N = a.shape[0], b.shape[1]
    acc = a.to(torch.float64) @ b.to(torch.float64)  # exact: |sums| < 2^53
    if azp_adj is not None:
        zp = azp.reshape(M, 1).to(torch.float64) if azp is not None else 1.0
        acc = acc - zp * azp_adj.reshape(1, N).to(torch.float64)
    res = scale_a.reshape(-1, 1).to(torch.float64) * scale_b.reshape(1, -1).to(torch.float64) * acc
    if bias is not None:
        res = res + bias.reshape(1, N).to(torch.float64)
    if activation != "none":
        res = activations.torch_activation(activation)(res.to(torch.float32))
    return res.to(out_dtype)


# ---------------------------------------------------------------------------------------- CUDA path
_device_sm: Dict[int, int] = {}
_selected: Dict[tuple, Tuple[loader.KernelLibrary, str, str]] = {}


_fast_ready = None  # the C++ fast path module once loaded (see fastpath.py)



def kernel_sm(device_index: int) -> int:
    """The kernel family that runs on a device: SM90 kernels on 9.0, SM80 kernels on 8.x."""
    sm = _device_sm.get(device_index)
    if sm is None:
        major, minor = torch.cuda.get_device_capability(device_index)
        if major == 9 and minor == 0:
            sm = 90
        elif major == 8:
            sm = 80  # sm_80 machine code runs on every 8.x GPU
        else:
            raise UnsupportedDeviceError(f"cutlass_gemm has no kernels for SM{major}{minor} "
                                         f"(device {device_index}); supported: SM80-SM89 and SM90")
        _device_sm[device_index] = sm
    return sm


def select_kernel(sm: int, variant: str, a_dtype: str, out_dtype: str, sa: str, sb: str, m: int, choice=None,
                  activation: str = "none"):
    """(kernel, scale_a kind it takes, scale_b kind it takes) for a problem; memoised per M bucket.

    A kernel built for the call's scale kinds is used when it is in the default set or the cache;
    otherwise the per-token/per-channel kernel serves, with the scalar broadcast to a vector."""
    if a_dtype == "e4m3" and sm < 89:
        raise UnsupportedDeviceError(f"fp8 (float8_e4m3fn) GEMMs need SM89+ kernels; this device runs the SM{sm} "
                                     f"kernel family, which serves int8 only (capability matrix in the README)")
    choice = choice or heuristics.choose_tile(sm, m)
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
        ptrs = _launch_args(variant, a, b, _as_vector(scale_a, sa == "tensor", m, 1),
                            _as_vector(scale_b, sb == "tensor", 1, n), bias, azp_adj, azp, out, m, n, k, dev)
        return autotune.time_gpu_us(lambda: lib.launch(*ptrs))

    return autotune.get_autotuner().best(
        autotune.current_device_key(dev), variant, _IN_NAMES[a_dtype], _OUT_NAMES[out_dtype],
        autotune.bucket_m(m), n, k, autotune.default_candidates(sm), time_candidate)


def _plan(dev, variant, a_dtype, out_dtype, sa, sb, m, n=0, k=0, timing_args=None, activation="none"):
    """(ctypes launch function, kernel, broadcast scale_a?, broadcast scale_b?) for a call; memoised."""
    if m == 1 and sa == "tensor" and sb == "channel":
        sa = "token"  # one row: its per-token scale is the scalar itself, and the prebuilt kernels take it
    tuned = autotune.enabled()
    key = (dev, variant, activation, a_dtype, out_dtype, sa, sb, m) + ((n, k) if tuned else ())
    plan = _plans.get(key)
    if plan is None:
        sm = kernel_sm(dev)
        choice = None
        if tuned and timing_args is not None:
            choice = _autotuned_choice(dev, sm, variant, a_dtype, out_dtype, sa, sb, m, n, k, timing_args)
        lib, want_a, want_b = select_kernel(sm, variant, _IN_NAMES[a_dtype], _OUT_NAMES[out_dtype], sa, sb, m,
                                            choice=choice, activation=activation)
        if lib.workspace_size(m, n, k) != 0:  # none of the generated kernels needs one
            raise NotImplementedError(f"{lib.config.name} needs a workspace; not supported by this call path")
        plan = (lib._launch, lib, want_a != sa, want_b != sb)
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        _plans[key] = plan
        fast = None if tuned else fastpath.module()  # its plans are per M only; autotuned ones per (M, N, K)
        if fast is not None:  # teach the C++ fast path this plan; later calls skip Python entirely
            fast.register_plan(dev, fastpath.CODES[variant, activation], a_dtype, out_dtype, sa == "token",
                               sb == "channel", m, lib.function_address, plan[2], plan[3])
    return plan


def _as_vector(scale, expand: bool, rows: int, cols: int):
    """A per-tensor scale served by a per-token/per-channel kernel is broadcast to a real vector."""
    return scale.expand(rows, cols).contiguous() if expand else scale


def _launch_args(variant, a, b, scale_a, scale_b, bias, azp_adj, azp, out, M, N, K, dev) -> tuple:
    """cg_launch's arguments, in its order. `azp_adj` holds azp * colsum for the per-tensor variant."""
    adj = None if azp_adj is None else azp_adj.data_ptr()
    per_tensor_azp = variant in ("scaled_azp", "scaled_azp_nobias")
    # With one row a leading dimension is meaningless (and may be any stride); give the packed one.
    lda, ldd = (a.stride(0), out.stride(0)) if M > 1 else (K, N)
    return (a.data_ptr(), b.data_ptr(), out.data_ptr(), M, N, K, lda, b.stride(1), ldd,
            scale_a.data_ptr(), scale_b.data_ptr(), None if azp is None else azp.data_ptr(),
            None if per_tensor_azp else adj, adj if per_tensor_azp else None,
            None if bias is None else bias.data_ptr(), None, 0, torch._C._cuda_getCurrentRawStream(dev))


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
            return _run_cuda(variant, a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, out, M, N, K, sa, sb,
                             act)
    global _fast_ready
    if _fast_ready is None:
        _fast_ready = fastpath.module() or False
    launch, lib, expand_a, expand_b = _plan(dev, variant, a.dtype, out_dtype, sa, sb, M, N, K,
                                            (a, b, scale_a, scale_b, bias, azp_adj, azp, out), act)
    rc = launch(*_launch_args(variant, a, b, _as_vector(scale_a, expand_a, M, 1), _as_vector(scale_b, expand_b, 1, N),
                              bias, azp_adj, azp, out, M, N, K, dev))
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
_lib = torch.library.Library("cutlass_gemm", "DEF")
_SIG = "Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, ScalarType out_dtype"
_ACT = "str? activation=None"
_lib.define(f"scaled_mm({_SIG}, Tensor? bias=None, {_ACT}) -> Tensor")
_lib.define(f"scaled_mm_out(Tensor(a!) out, {_SIG}, Tensor? bias=None, {_ACT}) -> ()")
_lib.define(f"scaled_mm_azp({_SIG}, Tensor azp_adj, Tensor? azp=None, Tensor? bias=None, {_ACT}) -> Tensor")
_lib.define(f"scaled_mm_azp_out(Tensor(a!) out, {_SIG}, Tensor azp_adj, Tensor? azp=None, Tensor? bias=None, "
            f"{_ACT}) -> ()")


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


for _key in ("CPU", "CUDA"):
    _lib.impl("scaled_mm", _scaled_mm, _key)
    _lib.impl("scaled_mm_out", _scaled_mm_out, _key)
    _lib.impl("scaled_mm_azp", _scaled_mm_azp, _key)
    _lib.impl("scaled_mm_azp_out", _scaled_mm_azp_out, _key)


@torch.library.register_fake("cutlass_gemm::scaled_mm")
def _scaled_mm_fake(a, b, scale_a, scale_b, out_dtype, bias=None, activation=None):
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, out_dtype, bias)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


@torch.library.register_fake("cutlass_gemm::scaled_mm_azp")
def _scaled_mm_azp_fake(a, b, scale_a, scale_b, out_dtype, azp_adj, azp=None, bias=None, activation=None):
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, out_dtype, bias, azp_adj, azp, with_azp=True)
    return a.new_empty((a.shape[0], b.shape[1]), dtype=out_dtype)


@torch.library.register_fake("cutlass_gemm::scaled_mm_out")
def _scaled_mm_out_fake(out, a, b, scale_a, scale_b, out_dtype, bias=None, activation=None):
    activations.canonical(activation)
    validate(a, b, scale_a, scale_b, out_dtype, bias, out=out)


@torch.library.register_fake("cutlass_gemm::scaled_mm_azp_out")
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
