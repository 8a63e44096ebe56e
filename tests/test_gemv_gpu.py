"""GPU tests of the W8A8 decode GEMV (kernels/gemv.py, runtime/csrc/gemv_w8a8.cuh): every output element
against float64 on random data, outputs poisoned with NaN first, M = 1..16, odd N, K not a multiple of the
64-wide chunk, strided rows, every scale kind, with and without bias, int8 and fp8; that the ops route decode
calls to it (Python path and C++ fast path) and that the launcher refuses what it cannot serve."""
import os

import pytest
import torch

import cutlass_gemm
from cutlass_gemm.errors import KernelLaunchError
from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.gemv import GemvConfig
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.runtime import fastpath, gemv

from gpu_helpers import capture

pytestmark = pytest.mark.gpu

ULP = {torch.bfloat16: 2.0 ** -8, torch.float16: 2.0 ** -11}  # one unit in the last place, relative


def _sm90():
    return torch.cuda.get_device_capability() == (9, 0)


def _needs_gemv():
    if not _sm90():
        pytest.skip("the GEMV rows of heuristics.GEMV are SM90 only")
    if gemv.kernel(GemvConfig()) is None:
        pytest.skip("torch extension unavailable")


def problem(m, n, k, fp8, out_dtype, *, bias, sa_vec, sb_vec, seed, lda=None, ldo=None):
    g = torch.Generator(device="cuda").manual_seed(seed)
    lda = lda or k
    if fp8:
        a_full = (torch.randn((m, lda), device="cuda", generator=g) * 8).to(torch.float8_e4m3fn)
        w = (torch.randn((n, k), device="cuda", generator=g) * 8).to(torch.float8_e4m3fn)
    else:
        a_full = torch.randint(-128, 128, (m, lda), dtype=torch.int8, device="cuda", generator=g)
        w = torch.randint(-128, 128, (n, k), dtype=torch.int8, device="cuda", generator=g)
    a = a_full[:, :k]
    sa = (torch.rand((m, 1) if sa_vec else (1,), device="cuda", generator=g) + 0.5) * 1e-2
    sb = (torch.rand((1, n) if sb_vec else (1,), device="cuda", generator=g) + 0.5) * 1e-2
    b = torch.randn(n, device="cuda", generator=g).to(out_dtype) if bias else None
    out_full = torch.full((m, ldo or n), float("nan"), dtype=out_dtype, device="cuda")
    return a, w, sa, sb, b, out_full[:, :n]


def reference(a, w, sa, sb, bias):
    """(float64 value, scaled sum of |products|, |scaled sum| + |bias|: the size of the float32 epilogue's terms)."""
    acc = a.double() @ w.double().t()
    prod = sa.double().reshape(-1, 1) * (sb.double().reshape(1, -1) * acc)
    ref = prod + (bias.double() if bias is not None else 0.0)
    terms = prod.abs() + (bias.double().abs() if bias is not None else 0.0)
    absdot = sa.double().reshape(-1, 1) * sb.double().reshape(1, -1) * (a.double().abs() @ w.double().abs().t())
    return ref, absdot, terms


def check(out, a, w, sa, sb, bias, fp8, what, gemv_served=True):
    """GEMV results: int8 sums are exact, so every element is within one output ulp of the float64 value plus the
    float32 epilogue's roundings (2^-22 of its terms' size: they matter where the bias cancels the product); fp8:
    the tensor cores add e4m3 products in float32 in their own order, bounded by 2^-16 of the sum of |products|.
    Calls the CUTLASS tile served (M > 16, or e4m3 rows heuristics.GEMV leaves to it): its wgmma accumulates fp8
    with fewer bits, so they get test_ops_gpu.py's tolerance (1e-2 relative + 2e-3 of the largest |value|)."""
    assert not torch.isnan(out).any(), f"{what}: {int(torch.isnan(out).sum())} elements left unwritten"
    ref, absdot, terms = reference(a, w, sa, sb, bias)
    diff = (out.double() - ref).abs()
    if gemv_served:
        bound = ULP[out.dtype] * ref.abs() + 2.0 ** -22 * terms + 1e-30 + (2.0 ** -16 * absdot if fp8 else 0.0)
    else:
        bound = 1e-2 * ref.abs() + 2e-3 * ref.abs().max()
    bad = diff > bound
    assert not bad.any(), (f"{what}: {int(bad.sum())} of {out.numel()} elements off; worst excess "
                           f"{(diff - bound).max().item():.3e}")


@pytest.mark.parametrize("fp8", [False, True], ids=["int8", "e4m3"])
@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16], ids=["bf16", "f16"])
def test_every_m_to_16_odd_shapes_scale_kinds_bias_and_strides(fp8, out_dtype):
    _needs_gemv()
    cases = 0
    for n, k in [(8, 16), (24, 48), (136, 208), (1000, 4112), (4088, 1040)]:
        for m in range(1, 17):
            sa_vec, sb_vec, bias = m % 3 != 0, m % 4 != 1, m % 2 == 0
            strided = m % 5 == 2 and m > 1
            a, w, sa, sb, b, out = problem(m, n, k, fp8, out_dtype, bias=bias, sa_vec=sa_vec, sb_vec=sb_vec,
                                           seed=m * 7 + n + k, lda=k + 32 if strided else None,
                                           ldo=n + 8 if strided else None)
            res = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, out_dtype, b, out=out)
            assert res.data_ptr() == out.data_ptr()
            check(out, a, w, sa, sb, b, fp8, f"m={m} n={n} k={k} sa_vec={sa_vec} sb_vec={sb_vec} bias={bias}")
            cases += 1
    assert cases == 80


@pytest.mark.parametrize("fp8", [False, True], ids=["int8", "e4m3"])
@pytest.mark.parametrize("shape", [(16, 8192, 8192), (1, 4096, 14336), (16, 28672, 4096), (9, 14336, 4096)])
def test_model_shapes(fp8, shape):
    _needs_gemv()
    m, n, k = shape
    a, w, sa, sb, b, out = problem(m, n, k, fp8, torch.bfloat16, bias=True, sa_vec=True, sb_vec=True, seed=sum(shape))
    cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, b, out=out)
    served = isinstance(_plan_kernel(m, n, a.dtype), gemv.GemvKernel)
    assert served == heuristics.gemv_serves(90, m, n, "e4m3" if fp8 else "int8", "scaled_bias")
    check(out, a, w, sa, sb, b, fp8, f"{shape} ({'GEMV' if served else 'CUTLASS tile'})", gemv_served=served)


def _plan_kernel(m, n, a_dtype, variant="scaled_bias"):
    want = (torch.cuda.current_device(), variant, "none", a_dtype, torch.bfloat16, "token", "channel", m, n)
    plan = next((v for key, v in ops._plans.items() if key[:9] == want), None)  # any K
    return None if plan is None else plan[1]


@pytest.mark.parametrize("fp8", [False, True], ids=["int8", "e4m3"])
def test_decode_calls_take_the_gemv_and_larger_m_the_cutlass_tile(fp8):
    _needs_gemv()
    n, k = 520, 256  # N <= 4096: e4m3 takes the GEMV up to M = 16 too (heuristics.GEMV)
    for m in (1, 16, 17):
        for call in range(3):  # the first call plans in Python; the next go through the C++ fast path
            a, w, sa, sb, b, out = problem(m, n, k, fp8, torch.bfloat16, bias=True, sa_vec=True, sb_vec=True,
                                           seed=call + m)
            cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, b, out=out)
            check(out, a, w, sa, sb, b, fp8, f"m={m} call {call}", gemv_served=m <= 16)
        lib = _plan_kernel(m, n, a.dtype)
        assert isinstance(lib, gemv.GemvKernel) == (m <= 16), (m, lib)
        assert not isinstance(lib, gemv.GemvKernel) or lib.workspace_size(m, n, k) == 0


def test_int8_gemv_bit_equal_across_warp_splits_and_within_one_ulp_of_the_cutlass_tile():
    """int8 sums are exact, so the GEMV (each warps-per-CTA choice) and the CUTLASS tile differ at most in the
    float32 epilogue's rounding: count elements that differ at all, and bound them by one output ulp."""
    _needs_gemv()
    m, n, k = 16, 2064, 4160
    a, w, sa, sb, b, _ = problem(m, n, k, False, torch.bfloat16, bias=True, sa_vec=True, sb_vec=True, seed=5)
    outs = {}
    try:
        for kw in (4, 8, 16):
            gemv.set_warps_k(kw)
            outs[f"gemv{kw}"] = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, b)
        gemv.set_warps_k(0)
        os.environ[gemv.GEMV_ENV] = "0"
        ops._plans.clear()
        if fastpath.module() is not None:
            fastpath.module().clear_plans()
        outs["cutlass"] = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, b)
        assert not isinstance(_plan_kernel(m, n, torch.int8), gemv.GemvKernel)
    finally:
        gemv.set_warps_k(0)
        os.environ.pop(gemv.GEMV_ENV, None)
        ops._plans.clear()
        if fastpath.module() is not None:
            fastpath.module().clear_plans()
    assert torch.equal(outs["gemv4"], outs["gemv8"]) and torch.equal(outs["gemv4"], outs["gemv16"])
    differ = outs["gemv4"] != outs["cutlass"]
    print(f"GEMV vs CUTLASS tile: {int(differ.sum())} of {differ.numel()} elements differ")
    for name, out in outs.items():
        check(out, a, w, sa, sb, b, False, name)


def test_graph_capture_and_compile_through_the_gemv():
    _needs_gemv()
    m, n, k = 4, 1024, 512
    a, w, sa, sb, b, _ = problem(m, n, k, False, torch.bfloat16, bias=True, sa_vec=True, sb_vec=True, seed=11)
    eager = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, b)
    compiled = torch.compile(lambda x: cutlass_gemm.scaled_mm(x, w.t(), sa, sb, torch.bfloat16, b), fullgraph=True)
    assert torch.equal(compiled(a), eager)
    static_a = a.clone()
    graph, captured = capture(lambda x: cutlass_gemm.scaled_mm(x, w.t(), sa, sb, torch.bfloat16, b), static_a)
    captured.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(captured, eager)
    a2 = torch.randint(-128, 128, a.shape, dtype=torch.int8, device="cuda")
    static_a.copy_(a2)
    graph.replay()
    torch.cuda.synchronize()
    check(captured, a2, w, sa, sb, b, False, "graph replay with new input")


def test_launcher_refuses_what_it_cannot_serve():
    _needs_gemv()
    kern = gemv.kernel(GemvConfig())
    a = torch.zeros(32, 64, dtype=torch.int8, device="cuda")
    w = torch.zeros(64, 64, dtype=torch.int8, device="cuda")
    out = torch.empty(32, 64, dtype=torch.bfloat16, device="cuda")
    s = torch.ones(64, device="cuda")
    stream = torch.cuda.current_stream().cuda_stream
    args = [a.data_ptr(), w.data_ptr(), out.data_ptr(), 17, 64, 64, 64, 64, 64, s.data_ptr(), s.data_ptr(), None, None,
            None, None, None, 0, stream]
    with pytest.raises(KernelLaunchError, match="M = 17"):
        kern.launch(*args)
    args[3] = 4
    args[11] = s.data_ptr()  # a zero point: not served
    with pytest.raises(KernelLaunchError, match="zero-point"):
        kern.launch(*args)
    args[11] = None
    args[5] = 40  # K % 16 != 0
    with pytest.raises(KernelLaunchError, match="K % 16"):
        kern.launch(*args)
    assert kern.plan(16, 8192, 8192)["warps_k"] in (4, 8, 16)


@pytest.mark.parametrize("m", [12, 4])
@pytest.mark.parametrize("fp8", [False, True], ids=["int8", "e4m3"])
def test_step_depth_keeps_the_bits_and_the_bound(fp8, m):
    """Both row counts take 4 chunks of 64 K per lane step (M 9..16 since session 15, M <= 8 since session 37); the
    other depth (forced through gemv_set_step: 2 chunks at M 9..16, the 3-chunk kernel at M <= 8) loads differently but
    adds the same products in the same order at equal warps: the same bits, both within the bound."""
    _needs_gemv()
    from cutlass_gemm.runtime import extension
    ext = extension.load()
    n, k = 1040, 4160
    other = 2 if m > 8 else 3
    a, w, sa, sb, b, _ = problem(m, n, k, fp8, torch.bfloat16, bias=True, sa_vec=True, sb_vec=True, seed=9)
    assert ext.gemv_w8a8_plan(m, n, k)[3] == 4
    outs = {}
    try:
        gemv.set_warps_k(8)
        for forced, step in ((4, 4), (2, other)):
            ext.gemv_set_step(forced)
            assert ext.gemv_w8a8_plan(m, n, k)[3] == step
            outs[step] = cutlass_gemm.scaled_mm(a, w.t(), sa, sb, torch.bfloat16, b)
    finally:
        ext.gemv_set_step(0)
        gemv.set_warps_k(0)
    assert torch.equal(outs[4], outs[other])
    check(outs[4], a, w, sa, sb, b, fp8, f"M={m} 4 chunks per step")


@pytest.mark.parametrize("fp8", [False, True], ids=["int8", "e4m3"])
def test_opcheck_through_the_gemv(fp8):
    """The ops' registrations (schema, fake impl, aliasing of the out= form) hold on the calls the GEMV serves."""
    _needs_gemv()
    m, n, k = 5, 520, 192
    a, w, sa, sb, b, out = problem(m, n, k, fp8, torch.bfloat16, bias=True, sa_vec=True, sb_vec=False, seed=3)
    args = (a, w.t(), sa, sb, torch.bfloat16, b)
    # opcheck's test_schema perturbs the inputs with torch arithmetic that float8 tensors lack ("mul_cuda" not
    # implemented for Float8_e4m3fn, session10/call8): for e4m3 the other checks run
    utils = ("test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic") if fp8 else None
    kw = {} if utils is None else {"test_utils": utils}
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm.default, args, **kw)
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm_out.default, (out,) + args, **kw)
    plan = ops._plans.get(ops.plan_key(torch.cuda.current_device(), "scaled_bias", a.dtype, torch.bfloat16, "token",
                                        "tensor", m, n, k))
    assert plan is not None and isinstance(plan[1], gemv.GemvKernel)
