"""GPU tests of cutlass_gemm.cublaslt against the real libcublasLt (every test is marked ``gpu``; conftest skips
them without a CUDA GPU). Run: ``python -m pytest -m gpu tests/test_cublaslt_gpu.py -rxs``.

Assumes: a CUDA build of torch, libcublasLt findable by cuda.pathfinder (the nvidia-cublas wheel that CUDA
torch installs) or named by $CUTLASS_GEMM_CUBLASLT_LIBRARY. Written for the H100 (sm90), where the IMMA-order
matmul is expected to raise UnsupportedOrderError; on sm75-sm88 the same tests demand it works.
Outcomes marked xfail are documented cuBLASLt limits reported with the status cuBLASLt returned (read them
with ``-rx``); every failure message carries the device, cuBLASLt version and library path."""
import functools

import numpy as np
import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.cublaslt import (
    CublasLtError,
    Order,
    UnsupportedOrderError,
    ft_int8_linear,
    imma_matmul,
    int8_matmul,
    layouts,
    quantize_weight,
    select_order,
    transform,
    untransform,
)
from cutlass_gemm.cublaslt import _lib, matmul as matmul_module, transforms as transforms_module
from cutlass_gemm.cublaslt._descriptors import LayoutSpec
from cutlass_gemm.cublaslt.pipeline import error_bound

ORDERS = [Order.COL32, Order.COL4_4R2_8C, Order.COL32_2R_4R4]
B_ORDERS = [Order.COL4_4R2_8C, Order.COL32_2R_4R4]
TRANSFORM_SHAPES = [(37, 70), (1, 33), (64, 96), (256, 512), (1, 1), (33, 65), (8, 32)]
TN_SHAPES = [(37, 36, 68), (1, 32, 64), (64, 96, 128), (256, 512, 256), (17, 8, 4), (5, 4, 12), (300, 20, 36),
             (16, 64, 128), (8, 256, 512), (33, 4100, 1028)]


@functools.lru_cache(maxsize=None)
def _env() -> str:
    try:
        path, version = _lib.library_path(), _lib.version()
    except Exception as exc:  # noqa: BLE001
        path, version = f"<not loadable: {exc}>", None
    major, minor = torch.cuda.get_device_capability()
    return (f"[device {torch.cuda.get_device_name()} sm{major}{minor}, cuBLASLt {version} at {path}, "
            f"torch {torch.__version__} (CUDA {torch.version.cuda})]")


def _cc() -> int:
    major, minor = torch.cuda.get_device_capability()
    return 10 * major + minor


def _imma_expected_to_work(b_order: Order) -> bool:
    """cuBLASLt docs: COL4_4R2_8C on Turing (7.5) and Ampere (8.x), COL32_2R_4R4 on Ampere; not on Hopper or
    later. Ada (8.9) is left open: either outcome is accepted there."""
    cc = _cc()
    if b_order == Order.COL4_4R2_8C:
        return 75 <= cc < 89
    return 80 <= cc < 89


def _rand(shape, dtype=torch.int8, seed=0, low=None, high=None) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    info = torch.iinfo(dtype)
    low = info.min if low is None else low
    high = info.max if high is None else high
    return torch.randint(low, high + 1, shape, generator=g, dtype=torch.int64).to(dtype).cuda()


def _mismatch(got: np.ndarray, want: np.ndarray, what: str, limit: int = 6) -> str:
    bad = np.argwhere(got != want)
    lines = [f"{what}: {len(bad)} of {want.size} elements differ {_env()}"]
    for idx in bad[:limit]:
        idx = tuple(int(i) for i in idx)
        lines.append(f"  at {idx}: got {got[idx]!r}, want {want[idx]!r}")
    return "\n".join(lines)


def _assert_equal(got, want, what: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape} {_env()}"
    if not np.array_equal(got, want):
        pytest.fail(_mismatch(got, want, what))


def _ref_mm(a: torch.Tensor, b: torch.Tensor) -> np.ndarray:
    return a.cpu().numpy().astype(np.int64) @ b.cpu().numpy().astype(np.int64).T


@pytest.fixture(scope="module", autouse=True)
def _library():
    try:
        _lib.lib()
    except CublasLtError as exc:
        pytest.fail(f"libcublasLt not loadable on this GPU machine: {exc}")
    print("\ncuBLASLt test environment:", _env())


@pytest.mark.gpu
def test_environment_report():
    assert _lib.is_available() and _lib.version() > 0
    print(_env(), "select_order ->", select_order(), "/ float32 ->", select_order(None, torch.float32))


# ---- transforms ------------------------------------------------------------------------------------------

def _probe_form_transform(x: torch.Tensor, order: Order) -> torch.Tensor:
    """Diagnostic: the exact call form of shared/probes/cublaslt_transform_probe.py (column-major source,
    no transpose), to tell a wrong source description from a wrong layout formula."""
    rows, cols = x.shape
    xt = x.t().contiguous()  # column-major R x C, ld = R
    out = torch.zeros(layouts.buffer_size(rows, cols, order), dtype=x.dtype, device=x.device)
    dst = LayoutSpec(x.dtype, rows, cols, layouts.leading_dim(rows, order), order)
    transforms_module._run(f"diag:{order.name}:{x.dtype}", x.device, x.dtype,
                           [(LayoutSpec(x.dtype, rows, cols, rows, Order.COL), dst, 0)], xt.data_ptr(), out.data_ptr())
    return out


def _check_transform(x: torch.Tensor, order: Order) -> None:
    rows, cols = x.shape
    what = f"transform {tuple(x.shape)} {x.dtype} -> {order.name}"
    buf = transform(x, order)
    torch.cuda.synchronize()
    assert buf.shape == (layouts.buffer_size(rows, cols, order),) and buf.dtype == x.dtype, what
    got = buf.cpu().numpy()
    off = layouts.offsets(rows, cols, order)
    want = x.cpu().numpy()
    strategy = transforms_module.chosen_strategy(x.device, x.dtype, order, "to")
    if not np.array_equal(got[off], want):
        probe = _probe_form_transform(x, order).cpu().numpy()
        pytest.fail(_mismatch(got[off], want, f"{what} (strategy {strategy})")
                    + f"\n  probe-form transform matches the formula: {np.array_equal(probe[off], want)}")
    pad = got[layouts.padding_mask(rows, cols, order)]
    assert np.all(pad == 0), f"{what}: {int(np.count_nonzero(pad))} padding elements were written non-zero {_env()}"
    back = untransform(buf, order, rows, cols)
    torch.cuda.synchronize()
    _assert_equal(back.cpu().numpy(), want, f"untransform {order.name} -> {tuple(x.shape)} {x.dtype}")
    print(what, "ok; strategy", strategy, "/ inverse", transforms_module.chosen_strategy(x.device, x.dtype, order, "from"))


@pytest.mark.gpu
@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", TRANSFORM_SHAPES)
def test_transform_int8_matches_reference(order, rows, cols):
    _check_transform(_rand((rows, cols), torch.int8, seed=rows * 7 + cols), order)


@pytest.mark.gpu
@pytest.mark.parametrize("order", ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("rows,cols", [(37, 70), (1, 33), (64, 96)])
def test_transform_int32_matches_reference(order, rows, cols):
    # values within +-2**24 stay exact even if cuBLASLt only accepts a float32 scale type for int32
    x = _rand((rows, cols), torch.int32, seed=rows + cols, low=-(2**24), high=2**24)
    try:
        _check_transform(x, order)
    except CublasLtError as exc:
        if order == Order.COL32:
            raise
        pytest.xfail(f"cuBLASLt refuses int32 {order.name} transforms (FasterTransformer notes int32 -> "
                     f"COL4_4R2_8C is unsupported): {exc.status_name}: {exc}")


@pytest.mark.gpu
def test_transform_int32_full_range_exact():
    x = _rand((37, 70), torch.int32, seed=3)
    buf = transform(x, Order.COL32)
    back = untransform(buf, Order.COL32, 37, 70)
    torch.cuda.synchronize()
    strategy = transforms_module.chosen_strategy(x.device, torch.int32, Order.COL32, "to")
    if not torch.equal(back, x) and strategy and strategy[1] == "CUDA_R_32F":
        pytest.xfail(f"int32 transforms run with a float32 scale type here ({strategy}): |v| > 2**24 rounds")
    _assert_equal(back.cpu().numpy(), x.cpu().numpy(), f"int32 full-range COL32 round trip (strategy {strategy})")


@pytest.mark.gpu
def test_transform_rejects_bad_arguments():
    x = _rand((8, 8))
    cases = [
        (lambda: transform(x.float(), Order.COL32), "x"),
        (lambda: transform(x.t(), Order.COL32), "x"),  # not row-major contiguous
        (lambda: transform(x[None], Order.COL32), "x"),
        (lambda: transform(x.cpu(), Order.COL32), "x"),
        (lambda: transform(x, Order.COL), "order"),
        (lambda: transform(x, "COL64"), "order"),
        (lambda: untransform(torch.zeros(255, dtype=torch.int8, device="cuda"), Order.COL32, 8, 33), "buf"),
        (lambda: untransform(torch.zeros(256, dtype=torch.int16, device="cuda"), Order.COL32, 8, 8), "buf"),
        (lambda: untransform(torch.zeros(256, dtype=torch.int8, device="cuda"), Order.COL32, 8, 0), "cols"),
    ]
    for call, argument in cases:
        with pytest.raises(InvalidArgumentError) as info:
            call()
        assert info.value.argument == argument, str(info.value)


def _busy(stream_cycles: int = 200_000_000) -> None:
    """Keep the current stream busy for a while (tens of ms), to expose work enqueued on another stream."""
    if hasattr(torch.cuda, "_sleep"):
        torch.cuda._sleep(stream_cycles)


@pytest.mark.gpu
def test_transforms_run_on_current_stream():
    x = _rand((64, 96), seed=5)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        _busy()
        x2 = x ^ 0x55  # produced on s, after the busy kernel
        buf = transform(x2, Order.COL4_4R2_8C)
        y = untransform(buf, Order.COL4_4R2_8C, 64, 96)
        assert torch.cuda.current_stream() == s
    s.synchronize()
    _assert_equal(y.cpu().numpy(), (x ^ 0x55).cpu().numpy(), "transform round trip inside torch.cuda.stream(s)")


# ---- int8 matmul, plain TN -------------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("m,n,k", TN_SHAPES)
def test_int8_matmul_tn_exact(m, n, k):
    a, b = _rand((m, k), seed=m), _rand((n, k), seed=n + 1000)
    try:
        c = int8_matmul(a, b, order="tn")
    except CublasLtError as exc:
        if m <= 16:  # torch._int_mm refuses M <= 16 for cuBLAS's sake; report rather than fail
            pytest.xfail(f"cuBLASLt refused int8 TN with M={m}: {exc.status_name}: {exc}")
        raise
    torch.cuda.synchronize()
    assert c.dtype == torch.int32 and c.shape == (m, n) and c.is_contiguous()
    _assert_equal(c.cpu().numpy(), _ref_mm(a, b), f"int8 TN matmul M={m} N={n} K={k} -> int32")


@pytest.mark.gpu
def test_int8_matmul_matches_torch_int_mm():
    a, b = _rand((64, 128), seed=11), _rand((96, 128), seed=12)
    c = int8_matmul(a, b)
    ref = torch._int_mm(a, b.t())
    _assert_equal(c.cpu().numpy(), ref.cpu().numpy(), "int8_matmul vs torch._int_mm(a, b.t())")


@pytest.mark.gpu
@pytest.mark.parametrize("m,n,k", [(37, 36, 68), (64, 96, 128)])
def test_int8_matmul_int8_output(m, n, k):
    a, b = _rand((m, k), seed=m + 1), _rand((n, k), seed=n + 2)
    ref = _ref_mm(a, b).astype(np.float64)
    for alpha in (None, 1.0 / 64):
        q = int8_matmul(a, b, alpha=alpha, out_dtype=torch.int8)
        torch.cuda.synchronize()
        want = np.clip(np.rint(ref * (1.0 if alpha is None else alpha)), -128, 127)
        diff = np.abs(q.cpu().numpy().astype(np.int64) - want)
        assert q.dtype == torch.int8 and diff.max() <= 1, \
            _mismatch(q.cpu().numpy(), want.astype(np.int8), f"int8 out alpha={alpha} M={m} N={n} K={k}")


@pytest.mark.gpu
@pytest.mark.parametrize("m,n,k", [(37, 36, 68), (64, 96, 128), (1, 8, 4)])
def test_int8_matmul_alpha_vector_int8_output(m, n, k):
    a, b = _rand((m, k), seed=m + 3), _rand((n, k), seed=n + 4)
    alpha = torch.linspace(1e-3, 2e-2, n, dtype=torch.float32, device="cuda")
    try:
        q = int8_matmul(a, b, alpha=alpha, out_dtype=torch.int8)
    except CublasLtError as exc:
        if m <= 16:
            pytest.xfail(f"cuBLASLt refused M={m}: {exc.status_name}: {exc}")
        raise
    torch.cuda.synchronize()
    want = np.clip(np.rint(_ref_mm(a, b) * alpha.cpu().numpy().astype(np.float64)[None, :]), -128, 127)
    diff = np.abs(q.cpu().numpy().astype(np.int64) - want)
    assert diff.max() <= 1, _mismatch(q.cpu().numpy(), want.astype(np.int8), f"alpha-vector int8 out M={m} N={n} K={k}")
    print("pointer mode used:", [p.pointer_mode.name for p in matmul_module._plans._items.values()][-1])


@pytest.mark.gpu
@pytest.mark.parametrize("m,n,k", [(37, 36, 68), (64, 96, 128), (256, 512, 256)])
@pytest.mark.parametrize("kind", ["vector", "scalar", "none"])
def test_int8_matmul_float_output_vs_float64(m, n, k, kind):
    a, b = _rand((m, k), seed=m + 5), _rand((n, k), seed=n + 6)
    g = torch.Generator().manual_seed(n)
    if kind == "vector":
        alpha = (torch.rand(n, generator=g) * 0.1 + 1e-3).float().cuda()
        scale = alpha.cpu().numpy().astype(np.float64)[None, :]
    elif kind == "scalar":
        alpha, scale = 0.0123, 0.0123
    else:
        alpha, scale = None, 1.0
    try:
        y = int8_matmul(a, b, alpha=alpha, out_dtype=torch.float32)
    except CublasLtError as exc:
        if exc.status_name == "CUBLAS_STATUS_NOT_SUPPORTED":
            pytest.xfail(f"cuBLASLt offers no int8 -> float32 matmul with alpha={kind} here: {exc}")
        raise
    torch.cuda.synchronize()
    ref = _ref_mm(a, b).astype(np.float64) * scale
    got = y.cpu().numpy().astype(np.float64)
    err = np.abs(got - ref)
    tol = 1e-5 * np.abs(ref) + 1e-6 * np.abs(ref).max()
    assert y.dtype == torch.float32 and np.all(err <= tol), (
        f"float32 out alpha={kind} M={m} N={n} K={k}: max abs err {err.max():.3g}, max rel "
        f"{(err / np.maximum(np.abs(ref), 1e-30)).max():.3g}, at {np.unravel_index(err.argmax(), err.shape)} {_env()}")


@pytest.mark.gpu
def test_int8_matmul_rejects_unsupported_shapes_and_arguments():
    a, b = _rand((5, 8), seed=1), _rand((4, 8), seed=2)
    base = torch.zeros(41, dtype=torch.int8, device="cuda")
    cases = [
        # the plain TN pipeline's shape rules (order="auto" may pick the IMMA orders on sm75-sm88)
        (lambda: int8_matmul(a, _rand((6, 8)), order="tn"), "b_nk"),                    # N % 4 != 0
        (lambda: int8_matmul(_rand((5, 6)), _rand((4, 6)), order="tn"), "a"),          # K % 4 != 0
        (lambda: int8_matmul(_rand((37, 70)), _rand((30, 70)), order="tn"), "b_nk"),   # odd N (and K)
        (lambda: int8_matmul(base[1:].view(5, 8), b, order="tn"), "a"),                # not 4-byte aligned
        (lambda: int8_matmul(a, _rand((4, 12))), "b_nk"),                   # K mismatch
        (lambda: int8_matmul(a, _rand((8, 4)).t()), "b_nk"),               # not row-major
        (lambda: int8_matmul(a.cpu(), b), "a"),
        (lambda: int8_matmul(a, b.cpu()), "b_nk"),
        (lambda: int8_matmul(a.int(), b), "a"),
        (lambda: int8_matmul(a, b, alpha=2.0), "alpha"),                    # int32 output takes no alpha
        (lambda: int8_matmul(a, b, alpha=torch.ones(3, device="cuda"), out_dtype=torch.float32), "alpha"),
        (lambda: int8_matmul(a, b, alpha=torch.ones(4, dtype=torch.float64, device="cuda"),
                             out_dtype=torch.float32), "alpha"),
        (lambda: int8_matmul(a, b, alpha=torch.ones(4), out_dtype=torch.float32), "alpha"),  # CPU vector
        (lambda: int8_matmul(a, b, out_dtype=torch.float16), "out_dtype"),
        (lambda: int8_matmul(a, b, order="COL32"), "order"),
        (lambda: int8_matmul(a, b, out_dtype=torch.float32, order=Order.COL4_4R2_8C), "out_dtype"),
    ]
    for i, (call, argument) in enumerate(cases):
        with pytest.raises(InvalidArgumentError) as info:
            call()
        assert info.value.argument == argument, f"case {i}: {info.value}"


@pytest.mark.gpu
def test_int8_matmul_runs_on_current_stream():
    a, b = _rand((64, 128), seed=21), _rand((96, 128), seed=22)
    alpha = torch.full((96,), 0.5, dtype=torch.float32, device="cuda")
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        _busy()
        a2 = -a.clamp(min=-127)  # produced on s after the busy kernel
        c = int8_matmul(a2, b)
        q = int8_matmul(a2, b, alpha=alpha, out_dtype=torch.int8)
    s.synchronize()
    ref = _ref_mm(-a.clamp(min=-127), b)
    _assert_equal(c.cpu().numpy(), ref, "int8 TN matmul inside torch.cuda.stream(s)")
    want = np.clip(np.rint(ref * 0.5), -128, 127)
    assert np.abs(q.cpu().numpy().astype(np.int64) - want).max() <= 1, "alpha-vector matmul inside stream(s)"


@pytest.mark.gpu
def test_matmul_plans_are_cached():
    a, b = _rand((40, 64), seed=31), _rand((32, 64), seed=32)
    int8_matmul(a, b)
    size = len(matmul_module._plans)
    int8_matmul(a, b)
    assert len(matmul_module._plans) == size
    int8_matmul(_rand((41, 64)), b)
    assert len(matmul_module._plans) == size + 1


# ---- the IMMA-order pipeline -----------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("b_order", B_ORDERS, ids=lambda o: o.name)
@pytest.mark.parametrize("m,n,k", [(64, 96, 128), (37, 40, 70), (256, 128, 64)])
def test_imma_orders_on_this_device(b_order, m, n, k):
    a, b = _rand((m, k), seed=m + 41), _rand((n, k), seed=n + 42)
    try:
        c = int8_matmul(a, b, order=b_order)
    except UnsupportedOrderError as exc:
        if _imma_expected_to_work(b_order):
            pytest.fail(f"COL32 x {b_order.name} should run on this GPU: {exc} {_env()}")
        assert exc.status_name.startswith("CUBLAS_STATUS_"), exc.status_name
        print(f"COL32 x {b_order.name} M={m} N={n} K={k}: UnsupportedOrderError {exc.status_name} {_env()}")
        return
    torch.cuda.synchronize()
    _assert_equal(c.cpu().numpy(), _ref_mm(a, b), f"IMMA COL32 x {b_order.name} M={m} N={n} K={k}")
    alpha = torch.linspace(1e-3, 2e-2, n, dtype=torch.float32, device="cuda")
    q = int8_matmul(a, b, alpha=alpha, out_dtype=torch.int8, order=b_order)
    torch.cuda.synchronize()
    want = np.clip(np.rint(_ref_mm(a, b) * alpha.cpu().numpy().astype(np.float64)[None, :]), -128, 127)
    assert np.abs(q.cpu().numpy().astype(np.int64) - want).max() <= 1, f"IMMA {b_order.name} alpha-vector int8 out"


@pytest.mark.gpu
def test_sm90_imma_orders_raise_unsupported_or_work():
    if _cc() < 90:
        pytest.skip(f"checks the Hopper-or-later behaviour; this GPU is sm{_cc()}")
    a, b = _rand((64, 128), seed=51), _rand((96, 128), seed=52)
    try:
        c = int8_matmul(a, b, order="COL4_4R2_8C")
    except UnsupportedOrderError as exc:
        print(f"sm{_cc()}: COL32 x COL4_4R2_8C -> UnsupportedOrderError {exc.status_name}: {exc}")
        assert exc.status_name.startswith("CUBLAS_STATUS_") and exc.status_name != "CUBLAS_STATUS_SUCCESS", \
            exc.status_name
        return
    torch.cuda.synchronize()
    print(f"sm{_cc()}: cuBLASLt ran COL32 x COL4_4R2_8C")
    _assert_equal(c.cpu().numpy(), _ref_mm(a, b), "COL32 x COL4_4R2_8C on sm90")


@pytest.mark.gpu
@pytest.mark.parametrize("b_order", B_ORDERS, ids=lambda o: o.name)
def test_imma_matmul_low_level(b_order):
    m, n, k = 64, 96, 128
    a, b = _rand((m, k), seed=61), _rand((n, k), seed=62)
    a_buf, b_buf = transform(a, Order.COL32), transform(b, b_order)
    try:
        d = imma_matmul(a_buf, b_buf, m, n, k, b_order=b_order)
    except UnsupportedOrderError as exc:
        if _imma_expected_to_work(b_order):
            pytest.fail(f"imma_matmul COL32 x {b_order.name} should run here: {exc}")
        print(f"imma_matmul {b_order.name}: UnsupportedOrderError {exc.status_name}")
        return
    assert d.shape == (layouts.buffer_size(m, n, Order.COL32),) and d.dtype == torch.int32
    c = untransform(d, Order.COL32, m, n)
    torch.cuda.synchronize()
    _assert_equal(c.cpu().numpy(), _ref_mm(a, b), f"imma_matmul COL32 x {b_order.name} (D in COL32)")


@pytest.mark.gpu
def test_select_order_follows_sm():
    cc = _cc()
    got = select_order()
    if cc == 75:
        assert got == Order.COL4_4R2_8C
    elif 80 <= cc < 89:
        assert got == Order.COL32_2R_4R4
    else:
        assert got == "tn"
    assert select_order(None, torch.float32) == "tn"


# ---- FasterTransformer-style pipeline --------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.parametrize("fused", [False, True], ids=["dequant_in_torch", "fused_alpha"])
@pytest.mark.parametrize("m,n,k", [(37, 50, 70), (64, 96, 128), (1, 256, 512), (200, 64, 300)])
def test_ft_pipeline_vs_float_reference(m, n, k, fused):
    g = torch.Generator().manual_seed(m * 3 + n + k)
    x = torch.randn(m, k, generator=g) * 2
    w = torch.randn(n, k, generator=g) * torch.linspace(0.05, 1.0, n)[:, None]
    try:
        y = ft_int8_linear(x.cuda(), w.cuda(), fused_alpha=fused)
    except CublasLtError as exc:
        if m <= 16 and not fused:
            pytest.xfail(f"cuBLASLt refused M={m}: {exc.status_name}: {exc}")
        if fused and exc.status_name == "CUBLAS_STATUS_NOT_SUPPORTED":
            pytest.xfail(f"no fused alpha-vector float32 output here: {exc}")
        raise
    torch.cuda.synchronize()
    assert y.shape == (m, n) and y.dtype == torch.float32
    ref = x.double() @ w.double().T
    err = (y.cpu().double() - ref).abs()
    bound = error_bound(x, w) * 1.001 + 1e-5 * ref.abs() + 1e-5
    rel = float(err.norm() / ref.norm())
    assert bool((err <= bound).all()), (
        f"FT pipeline M={m} N={n} K={k} fused={fused}: error exceeds the int8 quantization bound by "
        f"{float((err - bound).max()):.3g} (relative Frobenius error {rel:.3g}) {_env()}")
    assert rel < 0.05, f"relative error {rel}"
    print(f"FT pipeline M={m} N={n} K={k} fused={fused}: relative error {rel:.2e}, order {select_order()}")


@pytest.mark.gpu
def test_ft_pipeline_prequantized_weight_and_half_input():
    g = torch.Generator().manual_seed(7)
    x = torch.randn(48, 96, generator=g).cuda()
    w = torch.randn(64, 96, generator=g).cuda()
    qw = quantize_weight(w)
    y = ft_int8_linear(x, qw)
    torch.testing.assert_close(y, ft_int8_linear(x, w), rtol=0, atol=0)
    yh = ft_int8_linear(x.half(), w)
    assert yh.dtype == torch.float16
    ref = x.double() @ w.double().T
    err = (yh.double() - ref).abs()
    bound = error_bound(x.half().float(), w) + 2e-3 * ref.abs() + 1e-2  # plus fp16 rounding of in/output
    assert bool((err <= bound).all()), f"fp16 input: max excess {float((err - bound).max())} {_env()}"
