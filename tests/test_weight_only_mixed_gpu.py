"""GPU (SM90): the mixed-input weight-only GEMM (kernels/mixed_input.py) against float64, every output element.
First run on the H100 in session6/call1: symmetric formats passed; zero-point formats failed against a
reference with two roundings per weight, which the kernel does not do (one HFMA2). Run with `pytest -m gpu`.

Kernels this file needs (every config `mixed_input.default_configs()` lists: what SELECTION can pick, in
each format; build them first on the H100, in parallel):

    python tools/generate_kernels.py --mixed --compile
"""
import os
import warnings

import pytest
import torch

from cutlass_gemm.errors import InvalidArgumentError
from cutlass_gemm.kernels.mixed_input import MixedInputConfig, default_configs, select_config
from cutlass_gemm.nn import WeightOnlyLinear
from cutlass_gemm.ops import weight_only as wo_ops
from cutlass_gemm.ops.weight_only import (WeightOnlyFallbackWarning, launch_mixed, weight_only_backend,
                                          weight_only_linear)
from cutlass_gemm.quant import prepack, quantize_weight_only, unpack
from cutlass_gemm.quant.prepack_mixed import dequantize_mixed
from gpu_helpers import replays_match_eager, without_sync
from test_weight_only_gpu import _poison  # NaN in the allocator's next block: unwritten outputs show

# CUTLASS_GEMM_TEST_MIXED_KERNELS: more kernel names (space-separated) for the per-kernel test, e.g. the
# candidates of tools/bench_mixed_sweep.py before one enters SELECTION
KERNELS = [c.name for c in default_configs()] + [
    n for n in os.environ.get("CUTLASS_GEMM_TEST_MIXED_KERNELS", "").split() if n not in {c.name for c in default_configs()}]

pytestmark = pytest.mark.gpu
MS = (65, 128, 257, 2048)
FORMATS = [(bits, zp) for bits in (4, 8) for zp in (False, True)]
# N below, at and above one 128-row weight tile and not a multiple of it; K = 5 and 10 K-tiles, 18 for
# per channel: the TMA boxes overhang N and M; K is whole tiles (the layout needs K % 64 == 0).
SHAPES = [(96, 320), (160, 640), (384, 1152)]


@pytest.fixture(autouse=True)
def _sm90_and_opt_in(monkeypatch):
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the mixed-input kernel is SM90 only")
    monkeypatch.setenv(wo_ops.MIXED_INPUT_ENV, "1")


def _packed(n, k, bits, group, zp, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(n, k, generator=g) * torch.logspace(-1, 0, n).unsqueeze(1)
    return prepack(quantize_weight_only(w, bits, group, zero_point=zp, scale_dtype=dtype), "cutlass_mixed_sm90",
                   device="cuda")


def _check(y, x, p, bias, what):
    """Every element against float64 with the kernel's own weight (dequantize_mixed): the output is rounded
    once (u) and accumulated in fp32 (bounded by 2^-16 of sum |x||w| here, far above its typical size);
    and normwise against the exact weight (zero points add one rounding per weight element, of -(z * s))."""
    u = 2.0 ** -8 if y.dtype == torch.bfloat16 else 2.0 ** -11
    w = dequantize_mixed(p, y.dtype).double()
    xd = x.reshape(-1, p.k).double()
    ref = xd @ w.t() + (0 if bias is None else bias.double())
    y2 = y.reshape(ref.shape).double()
    assert torch.isfinite(y2).all(), f"{what}: non-finite output (unwritten or NaN)"
    tol = u * ref.abs() + 2.0 ** -16 * (xd.abs() @ w.abs().t()) + 1e-6
    bad = ((y2 - ref).abs() > tol)
    assert not bad.any(), f"{what}: {int(bad.sum())} elements off, first at {bad.nonzero()[0].tolist()}"
    exact = xd @ unpack(p).dequantize(torch.float64).t() + (0 if bias is None else bias.double())
    norm = exact.norm(dim=1).clamp_min(1e-30)
    err = ((y2 - exact).norm(dim=1) / norm).max().item()
    # The format's own error (the kernel's weight against the exact one) bounds what the kernel can reach:
    # -(z * s) rounded to bf16 is one error shared by a whole group, which per channel (one group of K) adds
    # up along the row (int8 zero points, bf16: 2.0% in session6/call2). The kernel may add its output rounding.
    err_model = (((ref - exact).norm(dim=1)) / norm).max().item()
    assert err_model <= 5e-2, f"{what}: the format itself is {err_model:.3g} off the exact weight"
    assert err <= err_model + 4e-3, f"{what}: row relative error {err:.3g} against the exact weight " \
                                    f"(the format's own: {err_model:.3g})"


@pytest.mark.parametrize("bits,zp", FORMATS)
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("group", [64, 128, None])
@pytest.mark.parametrize("n,k", SHAPES)
def test_matches_float64(bits, zp, dtype, group, n, k):
    if group and k % group:
        k += group - k % group
    p = _packed(n, k, bits, group, zp, dtype, seed=n + k + bits)
    bias = torch.randn(n, device="cuda").to(dtype)
    assert weight_only_backend(2048, p) == "cutlass_mixed_sm90"
    for m in MS:
        x = torch.randn(m, k, device="cuda").to(dtype)
        b = bias if m % 2 else None
        _poison(m * n, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("error", WeightOnlyFallbackWarning)  # the kernel, never the fallback
            y = weight_only_linear(x, p, b)
        assert y.shape == (m, n) and y.dtype == dtype
        _check(y, x, p, b, f"int{bits} zp={zp} g{group} {dtype} M={m} N={n} K={k}")


@pytest.mark.parametrize("bits,zp", [(4, False), (8, False), (8, True)])
@pytest.mark.parametrize("group", [64, 128, None])
@pytest.mark.parametrize("n,k", [(4096, 640), (4096, 320), (24576, 256)])
def test_selected_kernel_per_group_and_k_matches_float64(bits, zp, group, n, k):
    """Through the op at N >= SMALL_N, where SELECTION / WIDE_N_ROWS rows with the 128-wide K tile are picked (int8 up
    to 256 rows; int4 at N >= WIDE_N up to 64): group 64 and K = 320 (not multiples of 128) take the 64-wide form
    of the same tile, which must be the kernel that ran and be exact too."""
    if group and k % group:
        pytest.skip("K not a multiple of the group")
    dtype = torch.bfloat16
    p = _packed(n, k, bits, group, zp, dtype, seed=n + k + bits + (group or 0))
    for m in (40, 100, 200):
        cfg = select_config("bf16", bits, zp, m, n, k, group)
        wide = (k % 128 == 0) and (not group or group % 128 == 0)
        assert wide or cfg.tile[2] == 64, cfg.name
        x = torch.randn(m, k, device="cuda").to(dtype)
        _poison(m * n, dtype)
        with warnings.catch_warnings():
            warnings.simplefilter("error", WeightOnlyFallbackWarning)
            y = weight_only_linear(x, p)
        _check(y, x, p, None, f"int{bits} zp={zp} g{group} M={m} N={n} K={k} ({cfg.name})")


@pytest.mark.parametrize("name", KERNELS)
def test_every_selectable_kernel_matches_float64(name):
    """Each kernel SELECTION can pick, launched directly (not through its M bucket), at M from 1 to past two
    token tiles, N not a multiple of the weight tile, group 128 and per channel, with and without a bias."""
    cfg = MixedInputConfig.from_name(name)
    dtype = torch.bfloat16 if cfg.act_dtype == "bf16" else torch.float16
    for n, k, group in ((160, 640, 128), (384, 1152, None)):
        p = _packed(n, k, cfg.bits, group, cfg.zero_point, dtype, seed=n + cfg.bits)
        bias = torch.randn(n, device="cuda").to(dtype)
        for m in (1, 5, 17, 64, 65, 300):
            x = torch.randn(m, k, device="cuda").to(dtype)
            b = bias if m % 2 else None
            _poison(m * n, dtype)
            y = launch_mixed(cfg, x, p.qweight, p.scales, p.zeros, b, group or 0, n)
            _check(y, x, p, b, f"{name} M={m} N={n} K={k} g{group}")


@pytest.mark.parametrize("bits,zp", [(4, False), (8, True)])
def test_strided_batched_and_act_order_inputs(bits, zp):
    n, k = 256, 512
    p = _packed(n, k, bits, 128, zp, torch.bfloat16, seed=5)
    wide = torch.randn(300, k + 64, device="cuda").to(torch.bfloat16)
    x = wide[:, :k]  # row stride k + 64: the kernel reads ldx, no copy
    _check(weight_only_linear(x, p), x, p, None, "strided")
    xb = torch.randn(3, 50, k, device="cuda").to(torch.bfloat16)
    _check(weight_only_linear(xb, p), xb, p, None, "batched")


def test_target_shape_and_determinism():
    p = _packed(8192, 8192, 4, 128, False, torch.bfloat16, seed=1)
    x = torch.randn(2048, 8192, device="cuda").to(torch.bfloat16)
    y = weight_only_linear(x, p)
    _check(y, x, p, None, "2048x8192x8192")
    assert torch.equal(y, weight_only_linear(x, p))
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    w = dequantize_mixed(p, torch.bfloat16)
    for label, fn in (("mixed", lambda: weight_only_linear(x, p)), ("bf16 F.linear", lambda: x @ w.t())):
        fn()
        start.record()
        for _ in range(20):
            fn()
        end.record()
        torch.cuda.synchronize()
        print(f"2048x8192x8192 {label}: {start.elapsed_time(end) / 20 * 1e3:.1f} us")


@pytest.mark.parametrize("zp", [False, True])
def test_layer_uses_the_mixed_copy_from_33_rows_and_graphs_replay(zp):
    narrow = WeightOnlyLinear.from_float(torch.nn.Linear(1024, 512).to("cuda", torch.bfloat16), bits=4, group_size=128,
                                         zero_point=zp, large_m_backend="cutlass_mixed")
    # N < 4096: the small-M kernels' row blocks to max(256, 2^27 / (N * K)) rows (256 here), the mixed copy beyond
    assert weight_only_backend(256, narrow.packed, narrow.packed_mixed) == "mma_small_m"
    assert weight_only_backend(257, narrow.packed, narrow.packed_mixed) == "cutlass_mixed_sm90"
    lin = torch.nn.Linear(1024, 4096).to("cuda", torch.bfloat16)
    layer = WeightOnlyLinear.from_float(lin, bits=4, group_size=128, zero_point=zp, large_m_backend="cutlass_mixed")
    assert weight_only_backend(2048, layer.packed, layer.packed_mixed) == "cutlass_mixed_sm90"
    assert weight_only_backend(33, layer.packed, layer.packed_mixed) == "cutlass_mixed_sm90"
    assert weight_only_backend(32, layer.packed, layer.packed_mixed) == "mma_small_m"
    x33 = torch.randn(3, 11, 1024, device="cuda").to(torch.bfloat16)  # 33 rows: the mixed copy's kernel
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeightOnlyFallbackWarning)
        _check(layer(x33), x33, layer.packed_mixed, layer.bias, "layer, 33 rows")
    x = torch.randn(4, 100, 1024, device="cuda").to(torch.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeightOnlyFallbackWarning)
        y = layer(x)
    _check(y, x, layer.packed_mixed, layer.bias, "layer")
    replays_match_eager(layer, x.clone(), [torch.randn_like(x)])


@pytest.mark.parametrize("bits,group", [(4, 128), (8, None)])
def test_layer_hand_off_per_shape_matches_float64(bits, group):
    """The per-shape hand-off (wo_heuristics.MIXED_FROM; session 46): a 4096 x 4096 layer holding the mixed copy keeps
    the small-M kernel (variants 32 / 34) to 64 rows, a 6144 x 4096 one to 32 rows and its mixed copy from 33;
    eager calls on each side of the hand-off, every element against float64."""
    torch.manual_seed(5)
    for n, last_small in ((4096, 64), (6144, 32)):
        lin = torch.nn.Linear(4096, n).to("cuda", torch.bfloat16)
        layer = WeightOnlyLinear.from_float(lin, bits=bits, group_size=group, large_m_backend="cutlass_mixed")
        assert weight_only_backend(last_small, layer.packed, layer.packed_mixed) == "mma_small_m"
        assert weight_only_backend(65, layer.packed, layer.packed_mixed) == "cutlass_mixed_sm90"
        rows = (33, 48, 49, 64) if last_small == 64 else (32, 33, 48, 49)
        for m in rows:
            want = "mma_small_m" if m <= last_small else "cutlass_mixed_sm90"
            assert weight_only_backend(m, layer.packed, layer.packed_mixed) == want, (n, m)
            x = torch.randn(m, 4096, device="cuda", dtype=torch.bfloat16)
            _poison(m * n, torch.bfloat16)
            _check(layer(x), x, layer.packed_mixed, layer.bias, f"{n} x 4096 int{bits}, {m} rows ({want})")


def test_layer_mixed_fast_path_equals_the_op():
    """The layer's eager call on its mixed-input copy goes through one C++ entry (ops.weight_only.mixed_fast_call)
    once the Python path has run the shape: the op's bytes at every M (leading dims, bias), nothing for a shape
    not yet run or an input it does not serve (the Python path then takes the call)."""
    from cutlass_gemm.ops.weight_only import mixed_fast_call
    from cutlass_gemm.quant.prepack import LAYOUT_MIXED
    from cutlass_gemm.runtime import fastpath
    fast = fastpath.module()
    assert fast is not None, "the extension's fast path is needed here"
    fast.clear_mixed_plans()
    torch.manual_seed(0)
    n = 4096  # at least wo_heuristics.MIXED_FROM_M_MIN_N: the layer takes its mixed copy from 33 rows
    lin = torch.nn.Linear(1024, n, bias=True).to("cuda", torch.bfloat16)
    lay = WeightOnlyLinear.from_float(lin, bits=4, group_size=128, large_m_backend="cutlass_mixed")
    args = (lay.qweight_mixed, lay.scales_mixed, lay.bias, 4, 128, n)
    for shape in ((33, 1024), (2, 40, 1024), (300, 1024)):
        x = torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
        assert mixed_fast_call(x, *args) is None, shape  # no plan for this shape yet
        ref = torch.ops.cutlass_gemm.weight_only_mm(x, lay.qweight_mixed, lay.scales_mixed, None, lay.bias, None,
                                                    layout=LAYOUT_MIXED, bits=4, group_size=128, n=n)
        _poison(x.numel() // 1024 * n, torch.bfloat16)
        y = mixed_fast_call(x, *args)
        assert y is not None and y.shape == shape[:-1] + (n,), shape
        assert torch.equal(y, ref) and torch.equal(lay(x), ref), shape
        _check(y, x, lay.packed_mixed, lay.bias, f"fast path {shape}")
    wide = torch.randn(33, 1024 + 64, device="cuda", dtype=torch.bfloat16)[:, :1024]  # strided rows: stands aside
    assert mixed_fast_call(wide, *args) is None
    _check(lay(wide), wide, lay.packed_mixed, lay.bias, "strided rows through the Python path")
    assert mixed_fast_call(torch.randn(33, 1024, device="cuda"), *args) is None  # float32 x
    with pytest.raises(InvalidArgumentError):
        lay(torch.randn(33, 512, device="cuda", dtype=torch.bfloat16))  # wrong K: typed error, not a crash


def test_layer_mixed_path_compiles_captures_and_never_syncs():
    """48 rows of a 4096-wide layer: its mixed copy's kernel. Eager (the C++ entry once the shape ran) without a
    host sync, torch.compile(fullgraph=True) (the op, traced) and a CUDA-graph replay give the same bytes."""
    torch.manual_seed(3)
    lin = torch.nn.Linear(1024, 4096).to("cuda", torch.bfloat16)
    layer = WeightOnlyLinear.from_float(lin, bits=4, group_size=128, large_m_backend="cutlass_mixed")
    x = torch.randn(3, 16, 1024, device="cuda").to(torch.bfloat16)
    eager = layer(x)  # first call of the shape: the Python path, which registers it for the C++ entry
    _check(eager, x, layer.packed_mixed, layer.bias, "eager")
    assert torch.equal(without_sync(lambda: layer(x)), eager)
    assert torch.equal(torch.compile(layer, fullgraph=True)(x), eager)
    replays_match_eager(layer, x.clone(), [torch.randn_like(x)])
