"""GPU (SM90): the blockwise-scaled fp8 GEMM (`scaled_mm_blockwise`, kernels/blockwise.py) against float64, every
output element, outputs poisoned with NaN first; every activation; scale_a in both layouts; NaN propagation; the
outlier accuracy (per-block vs this library's per-token kernel); Fp8BlockLinear under torch.compile and CUDA graphs;
opcheck; every candidate kernel launched directly (the derived mainloops: same bits as CUTLASS's).
Run with `pytest -m gpu tests/test_blockwise_gpu.py`.

Kernels this file needs (`python tests/test_blockwise_gpu.py` prints them; build them first, about a minute each, in
parallel):

    python tools/generate_kernels.py --compile --jobs 16 $(printf -- "--name %s " $(python tests/test_blockwise_gpu.py))
"""
from unittest import mock

import pytest
import torch

import cutlass_gemm
from cutlass_gemm.kernels import activations, heuristics
from cutlass_gemm.kernels.blockwise import BlockwiseConfig
from cutlass_gemm.kernels.blockwise_heuristics import (candidate_configs, default_configs, op_padded_rows,
                                                      relayout_sfa, select_config)
from cutlass_gemm.ops import blockwise as bops
from cutlass_gemm.nn import Fp8BlockLinear
from cutlass_gemm.quant import quantize_weight
from cutlass_gemm.quant.blockwise import BLOCK, blockwise_reference, quantize_act_block, quantize_weight_block2d

from gpu_helpers import replays_match_eager, row_padding

pytestmark = pytest.mark.gpu
FP8 = torch.float8_e4m3fn
# M: the decode GEMV (<= 16) and the SELECTION rows (<= 128 64x128 pingpong, <= 1024 128x128 cooperative; above it
# the 128x128 tile still where 256x128 tiles would be too few, WIDE_MIN_TILES), odd and unaligned; N below / at /
# above one 128-wide tile and not a multiple of it; K 1, 3 and 16 scale blocks. WIDE: shapes with enough 256x128
# tiles (1x2 cluster, per-atom mainloop), and 4096 rows at N = 1032 (16 x 9 tiles) in the tests below.
MS = (1, 7, 16, 63, 65, 128, 129, 200, 257, 1000, 1100)
NKS = ((8, 128), (136, 384), (392, 2048))
WIDE = ((1100, 4104, 384), (1029, 4104, 2048))
OPCHECK_UTILS = ("test_autograd_registration", "test_faketensor", "test_aot_dispatch_dynamic")  # no fp8 `mul`


@pytest.fixture(autouse=True)
def _sm90():
    if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the FP8 blockwise mainloop is SM90 only")


def _poison(numel, dtype):
    """NaN in the allocator's next block of this size: an output element the kernel forgets shows up."""
    t = torch.full((numel,), float("nan"), dtype=dtype, device="cuda")
    del t


def _case(m, n, k, seed=0, bias=True, out_dtype=torch.bfloat16):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(m, k, generator=g) * torch.logspace(-2, 1, k // BLOCK).repeat_interleave(BLOCK)  # scales differ
    w = torch.randn(n, k, generator=g) * 0.05
    aq, wq = quantize_act_block(x), quantize_weight_block2d(w)
    b = torch.randn(n, generator=g).to(out_dtype) if bias else None
    cuda = dict(a=aq.q.cuda(), b=wq.q.cuda().t(), scale_a=aq.scale.cuda(), scale_b=wq.scale.cuda(),
                bias=None if b is None else b.cuda())
    return cuda, (aq, wq, b)


def _bounds(aq, wq, bias, out_dtype):
    """float64 pre-activation value and its error bound per element: one rounding to the output dtype, and the
    fp8 wgmma's limited-precision accumulation inside each 128-deep block (bounded by 2^-12 of the sum of
    |products| times the scales; products of e4m3 values are exact)."""
    q, w, sa, sb = aq.q.cuda(), wq.q.cuda(), aq.scale.cuda(), wq.scale.cuda()  # float64 on the GPU: quicker
    ref = blockwise_reference(q, w.t(), sa, sb, torch.float64, None if bias is None else bias.cuda()).cpu()
    mag = blockwise_reference(q.float().abs().to(FP8), w.float().abs().to(FP8).t(), sa.abs(), sb.abs(),
                              torch.float64).cpu()
    u = 2.0 ** -8 if out_dtype == torch.bfloat16 else 2.0 ** -11
    return ref, u * ref.abs() + 2.0 ** -12 * mag + 1e-30


def _check(y, ref, bound, what):
    y = y.double().cpu()
    assert not torch.isnan(y).any(), f"{what}: {int(torch.isnan(y).sum())} NaN (unwritten) elements"
    bad = (y - ref).abs() > bound
    assert not bad.any(), f"{what}: {int(bad.sum())} of {y.numel()} elements out of bound; worst at " \
                          f"{divmod(int(((y - ref).abs() / bound).argmax()), y.shape[1])}"


@pytest.mark.parametrize("m", MS)
@pytest.mark.parametrize("n, k", NKS)
def test_every_element_vs_float64(m, n, k):
    c, (aq, wq, b) = _case(m, n, k, seed=m + n)
    _poison(m * n, torch.bfloat16)
    y = cutlass_gemm.scaled_mm_blockwise(**c)
    assert y.shape == (m, n) and y.dtype == torch.bfloat16
    ref, bound = _bounds(aq, wq, b, torch.bfloat16)
    _check(y, ref, bound, f"{m}x{n}x{k}")


@pytest.mark.parametrize("m, n, k", WIDE)
def test_wide_tile_every_element_vs_float64(m, n, k):
    assert select_config("bf16", m, n=n).tile == (256, 128, 128)  # the shape reaches the row it is here for
    test_every_element_vs_float64(m, n, k)


def test_shapes_reach_every_selection_row():
    """The shapes above reach each SELECTION row, and the 128x128 row serves large M where 256x128 tiles are few."""
    rows = {select_config("bf16", m, n=n).tile for m in MS for n, _ in NKS if m > 16}
    assert rows == {(64, 128, 128), (128, 128, 128)}  # N <= 392: never enough 256-row tiles
    assert {select_config("bf16", m, n=n).tile for m, n, _ in WIDE} == {(256, 128, 128)}
    assert select_config("bf16", 4096, n=_n_at(4096, 136)).tile == (256, 128, 128)


def _n_at(m: int, n: int) -> int:
    """N for a test at `m` rows: 1032 at 4096 rows (16 x 9 tiles of 256 x 128, the per-atom kernel), else `n`."""
    return 1032 if m == 4096 else n


# Every kernel the benchmark compares (SELECTION's tiles, the alternatives, the derived mainloops at each persistent
# tile; scale_a column-major where the layers select it), launched directly. K of 1, 2, 3, 5 and 16 k-tiles
# (each exit of the overlapped loop: an odd last k-tile, an even one, the loop never entered) and more output tiles
# than SMs at 2048 x 1152 and 2304 x 2056 (256 x 128 tiles: 153; a persistent CTA's second tile must start from a
# cleared sum). M > 16: no decode GEMV.
CANDIDATE_SHAPES = ((65, 136, 128), (257, 264, 256), (200, 392, 384), (2048, 1152, 640), (1000, 392, 2048),
                    (2304, 2056, 384))
CANDIDATES = sorted({c.name for c in candidate_configs("bf16")} | {
    c.name for c in default_configs()
    if c.ab == "e4m3" and c.sfa_major == "mn" and c.activation == "none" and c.out_dtype == "bf16"})  # (int8: its own file)


def _with_kernel(cfg, fn):
    """fn() with the op's kernel choice patched to `cfg` (its per-shape plans dropped before and after)."""
    with mock.patch.object(bops, "select_config", lambda *a, **kw: cfg):
        bops._plans.clear()
        try:
            return fn()
        finally:
            bops._plans.clear()


@pytest.mark.parametrize("name", CANDIDATES)
def test_each_candidate_kernel_every_element(name):
    cfg = BlockwiseConfig.from_name(name)
    for m, n, k in CANDIDATE_SHAPES:
        if cfg.sfa_major == "mn" and m % 4:
            continue  # the TMA-loaded layout needs M % 4 == 0 (the op then takes "k")
        c, (aq, wq, b) = _case(m, n, k, seed=m + k)
        if cfg.sfa_major == "mn":
            c["scale_a"] = c["scale_a"].t().contiguous().t()
        _poison(m * n, torch.bfloat16)
        y = _with_kernel(cfg, lambda: cutlass_gemm.scaled_mm_blockwise(**c))
        _check(y, *_bounds(aq, wq, b, torch.bfloat16), f"{name} {m}x{n}x{k}")
        if cfg.mainloop != "cutlass":
            # the same wgmmas (64 x 128 x 32 atoms) and the same FFMA per element and k-tile as CUTLASS's mainloop:
            # the same bits; the per-atom tile is compared with the overlapped 128 x 128 one (CUTLASS's mainloop
            # at 256 x 128 spills and is not in the set; a cluster changes no bits)
            twin_cfg = (cfg.replace(mainloop="cutlass") if cfg.mainloop == "overlap"
                        else cfg.replace(tile=(128, 128, 128), cluster=(1, 1, 1), mainloop="overlap"))
            twin = _with_kernel(twin_cfg, lambda: cutlass_gemm.scaled_mm_blockwise(**c))
            assert torch.equal(y, twin), f"{name} {m}x{n}x{k}: differs from {twin_cfg.name}"


@pytest.mark.parametrize("cfg", [c for c in default_configs() if c.ab == "e4m3"], ids=lambda c: c.name)
def test_every_default_kernel_every_element(cfg):
    """Each fp8 kernel of the family's default set forced for the call, on the output dtype, activation and scale_a
    layout it was built for, at a pingpong-sized and a many-tile shape (session 58's suite run: 12 of them, fp16 and
    activation kernels at some tiles, ran in no test). The activation bound is test_every_activation_vs_float64's."""
    out_dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[cfg.out_dtype]
    act = None if cfg.activation == "none" else cfg.activation
    for m, n, k in ((200, 392, 384), (2048, 1152, 640)):  # M % 4 == 0: the column-major scale_a's TMA layout
        c, (aq, wq, b) = _case(m, n, k, seed=m + k, out_dtype=out_dtype)
        if cfg.sfa_major == "mn":
            c["scale_a"] = c["scale_a"].t().contiguous().t()
        _poison(m * n, out_dtype)
        y = _with_kernel(cfg, lambda: cutlass_gemm.scaled_mm_blockwise(**c, out_dtype=out_dtype, activation=act))
        assert y.dtype == out_dtype
        pre, bound = _bounds(aq, wq, b, out_dtype)
        if act is None:
            _check(y, pre, bound, f"{cfg.name} {m}x{n}x{k}")
        else:
            ref = activations.torch_activation(act)(pre).double()
            u = 2.0 ** -8 if out_dtype == torch.bfloat16 else 2.0 ** -11
            _check(y, ref, 1.2 * bound + 2.0 ** -9 * pre.abs() + u * ref.abs(), f"{cfg.name} {m}x{n}x{k}")


@pytest.mark.parametrize("m", (600, 602))
def test_row_major_scale_a_relaid_at_deep_k(m):
    """From K = 4096 and M = 512 (M % 4 == 0) the op copies a row-major scale_a to column-major and runs that kernel
    (kernels/blockwise_heuristics.relayout_sfa): the same bits as passing the column-major one; M = 602 keeps row-major.
    (136 columns: a GEMM too small for the op's row padding, op_padded_rows.)"""
    assert op_padded_rows(m, "e4m3", 136, 4096) == m
    c, (aq, wq, b) = _case(m, 136, 4096, seed=m)
    _poison(m * 136, torch.bfloat16)
    y = cutlass_gemm.scaled_mm_blockwise(**c)
    _check(y, *_bounds(aq, wq, b, torch.bfloat16), f"{m} row-major scale_a, K 4096")
    if m % 4 == 0:
        c["scale_a"] = c["scale_a"].t().contiguous().t()
        assert torch.equal(y, cutlass_gemm.scaled_mm_blockwise(**c))
    # plan keys end (..., scale_a major, operand type)
    assert {key[-2] for key in bops._plans if key[1:4] == (m, 136, 4096)} == {"mn" if m % 4 == 0 else "k"}


@pytest.mark.parametrize("major", ("k", "mn"))
@pytest.mark.parametrize("m,n,k", [(132, 16392, 1152), (260, 7168, 4096), (520, 4104, 4096)])
def test_mostly_empty_last_tiles_run_on_whole_tiles(m, n, k, major):
    """A caller's rows whose last M tile is mostly empty are copied into whole tiles (blockwise_heuristics.
    op_padded_rows, one pad launch): every element against float64, the output (m, n) and contiguous, the same bits as
    the caller padding the rows itself, and CUTLASS_GEMM_PAD_ROWS=0 within the bound."""
    rows = op_padded_rows(m, "e4m3", n, k)
    assert rows > m
    c, (aq, wq, b) = _case(m, n, k, seed=m + n)
    if major == "mn":
        c["scale_a"] = c["scale_a"].t().contiguous().t()
    _poison(m * n, torch.bfloat16)
    y = cutlass_gemm.scaled_mm_blockwise(**c)
    assert y.shape == (m, n) and y.is_contiguous()
    pre, bound = _bounds(aq, wq, b, torch.bfloat16)
    _check(y, pre, bound, f"padded {m}x{n}x{k} {major}")
    a_p = torch.zeros((rows, k), dtype=torch.uint8, device="cuda")
    a_p[:m] = c["a"].view(torch.uint8)
    a_p = a_p.view(FP8)
    sa_p = torch.zeros((rows, k // 128), device="cuda")
    sa_p[:m] = c["scale_a"]
    if major == "mn":
        sa_p = sa_p.t().contiguous().t()
    own = cutlass_gemm.scaled_mm_blockwise(**dict(c, a=a_p, scale_a=sa_p))
    assert torch.equal(y, own[:m]), f"{m}x{n}x{k}: not the bits of the caller's own padding"
    with row_padding(False):
        _poison(m * n, torch.bfloat16)
        _check(cutlass_gemm.scaled_mm_blockwise(**c), pre, bound, f"unpadded {m}x{n}x{k} {major}")


@pytest.mark.parametrize("out_dtype", [torch.bfloat16, torch.float16])
@pytest.mark.parametrize("m", (16, 4096))
def test_no_bias_and_fp16(out_dtype, m):
    n = _n_at(m, 264)
    c, (aq, wq, _) = _case(m, n, 1024, seed=3, bias=False, out_dtype=out_dtype)
    _poison(m * n, out_dtype)
    y = cutlass_gemm.scaled_mm_blockwise(**c, out_dtype=out_dtype)
    assert y.dtype == out_dtype
    _check(y, *_bounds(aq, wq, None, out_dtype), f"{m} {out_dtype} no bias")


@pytest.mark.parametrize("act", activations.PUBLIC)
@pytest.mark.parametrize("m", (16, 100, 200, 4096))
def test_every_activation_vs_float64(act, m):
    """act(value) against float64: the pre-activation bound carried through (Lipschitz <= 1.2 for all four), plus
    2^-9 of |value| for GELU_taylor's tanh.approx and SiLu's fast exp."""
    n = _n_at(m, 136)
    c, (aq, wq, b) = _case(m, n, 384, seed=11)
    _poison(m * n, torch.bfloat16)
    y = cutlass_gemm.scaled_mm_blockwise(**c, activation=act)
    pre, bound = _bounds(aq, wq, b, torch.bfloat16)
    ref = activations.torch_activation(act)(pre).double()
    _check(y, ref, 1.2 * bound + 2.0 ** -9 * pre.abs() + 2.0 ** -8 * ref.abs(), f"{act} m={m}")


@pytest.mark.parametrize("act", (None,) + activations.PUBLIC)
def test_nan_scale_row_is_nan(act):
    c, (aq, wq, b) = _case(37, 136, 256, seed=5)
    c["scale_a"][5, 1] = float("nan")
    y = cutlass_gemm.scaled_mm_blockwise(**c, activation=act).cpu()
    assert torch.isnan(y[5]).all(), f"{act}: NaN row not NaN"
    assert not torch.isnan(torch.cat([y[:5], y[6:]])).any()


@pytest.mark.parametrize("m", (16, 200, 4096))
def test_column_major_scale_a_same_result(m):
    c, _ = _case(m, _n_at(m, 136), 512, seed=2)
    y_k = cutlass_gemm.scaled_mm_blockwise(**c)
    c["scale_a"] = c["scale_a"].t().contiguous().t()
    assert torch.equal(cutlass_gemm.scaled_mm_blockwise(**c), y_k)


def test_quantize_per_group_feeds_the_gemm_without_a_copy():
    x = torch.randn(33, 512, device="cuda", dtype=torch.bfloat16)
    q, s = cutlass_gemm.quantize_per_group(x, 128, FP8)
    assert s.shape == (33, 4) and s.is_contiguous()
    ref = quantize_act_block(x.float().cpu())
    assert torch.equal(q.cpu().float(), ref.q.float()) and torch.equal(s.cpu(), ref.scale)


@pytest.mark.parametrize("ratio, gain", [(1e4, 1.15), (1e5, 4.0)])
def test_outliers_per_block_beats_per_token_kernel(ratio, gain):
    """Outlier activation group (every token) and outlier weight block, 1e4 / 1e5 times larger; measured where the
    outliers do not enter the products (w[128:, :128] = 0; x[32:, 384:] = 0), so the error is what the shared
    scales cost the ordinary values: this library's per-token x per-channel fp8 kernel vs the blockwise kernel.
    The reference quantizers on the CPU give 1.24-1.29x (1e4) and 9.3-10x (1e5) on this problem."""
    g = torch.Generator().manual_seed(7)
    m, n, k = 96, 256, 512
    x = torch.randn(m, k, generator=g)
    x[:, :BLOCK] *= ratio
    x[32:, 3 * BLOCK:] = 0
    w = torch.randn(n, k, generator=g)
    w[:BLOCK, 3 * BLOCK:] *= ratio
    w[BLOCK:, :BLOCK] = 0
    xc = x.cuda().bfloat16().float()
    q, s = cutlass_gemm.quantize_per_group(xc, BLOCK, FP8)
    wb = quantize_weight_block2d(w.cuda())
    blk = cutlass_gemm.scaled_mm_blockwise(q, wb.q.t(), s, wb.scale, out_dtype=torch.bfloat16).double().cpu()
    qt, st = cutlass_gemm.quantize_per_token(xc, FP8)
    wt = quantize_weight(w.cuda(), dtype=FP8)
    tok = cutlass_gemm.scaled_mm(qt, wt.b, st, wt.scale_b, torch.bfloat16).double().cpu()
    exact = xc.double().cpu() @ w.double().t()
    for region in ((slice(None), slice(BLOCK, None)), (slice(32, None), slice(None, BLOCK))):
        e = exact[region]
        err_blk = float((blk[region] - e).norm() / e.norm())
        err_tok = float((tok[region] - e).norm() / e.norm())
        assert err_blk * gain < err_tok, (region, err_blk, err_tok)


def test_layer_compile_graph_and_opcheck():
    torch.manual_seed(0)
    lin = torch.nn.Linear(512, 264).cuda().bfloat16()
    layer = Fp8BlockLinear.from_float(lin, activation="silu")
    x = torch.randn(3, 17, 512, device="cuda", dtype=torch.bfloat16)
    y = layer(x)
    aq = quantize_act_block(x.reshape(-1, 512).float().cpu())
    pre, bound = _bounds(aq, quantize_weight_block2d(lin.weight.detach().float().cpu()), lin.bias.detach().cpu(),
                         torch.bfloat16)
    ref = activations.torch_activation("silu")(pre).double()
    _check(y.reshape(-1, 264), ref, 1.2 * bound + 2.0 ** -9 * pre.abs() + 2.0 ** -8 * ref.abs(), "layer")
    compiled = torch.compile(layer, fullgraph=True)
    assert torch.equal(compiled(x), y)
    replays_match_eager(layer, x.clone(), [x * 2])
    c, _ = _case(37, 136, 384)
    torch.library.opcheck(torch.ops.cutlass_gemm.scaled_mm_blockwise.default,
                          (c["a"], c["b"], c["scale_a"], c["scale_b"], c["bias"], torch.bfloat16, "relu6"),
                          test_utils=OPCHECK_UTILS)


def test_state_dict_round_trip_on_gpu():
    lin = torch.nn.Linear(256, 128).cuda().half()
    layer = Fp8BlockLinear.from_float(lin)
    other = Fp8BlockLinear(256, 128, dtype=torch.float16, device="cuda")
    other.load_state_dict(layer.state_dict())
    x = torch.randn(5, 256, device="cuda", dtype=torch.float16)
    assert torch.equal(other(x), layer(x))


def kernels_needed():
    """The kernels these tests run (a session builds exactly those first: `python tools/generate_kernels.py --compile
    $(printf -- "--name %s " $(python tests/test_blockwise_gpu.py))`): the blockwise ones and the per-token fp8 GEMM of
    the outlier test; the decode GEMV (M <= 16) is the torch extension's."""
    def pick(m, n, k, act="none", major="k", out="bf16"):
        if major == "k" and relayout_sfa(m, k):
            major = "mn"
        return select_config(out, m, act, major, "e4m3", n).name
    names = {pick(m, n, k) for m in MS if m > 16 for n, k in NKS} | {pick(m, n, k) for m, n, k in WIDE}
    for name in CANDIDATES:
        cfg = BlockwiseConfig.from_name(name)
        names.add(name)
        if cfg.mainloop != "cutlass":
            names.add((cfg.replace(mainloop="cutlass") if cfg.mainloop == "overlap"
                       else cfg.replace(tile=(128, 128, 128), cluster=(1, 1, 1), mainloop="overlap")).name)
    names |= {pick(600, 136, 4096), pick(602, 136, 4096)}
    names |= {pick(4096, _n_at(4096, 264), 1024, out=out) for out in ("bf16", "f16")}
    names |= {pick(m, _n_at(m, 136), 384, act) for act in activations.PUBLIC for m in (100, 200, 4096)}
    names |= {pick(37, 136, 256, act or "none") for act in (None,) + activations.PUBLIC}
    names |= {pick(m, _n_at(m, 136), 512, major=major) for m in (200, 4096) for major in ("k", "mn")}
    names |= {pick(96, 256, 512), pick(51, 264, 512, "silu"), pick(37, 136, 384, "relu6"), pick(5, 128, 256)}
    names.add(heuristics.make_config(90, "scaled", "bf16", heuristics.choose_tile(90, 96, 256, "e4m3"), a_dtype="e4m3",
                                     scale_a="token", scale_b="channel").name)  # the outlier test's per-token GEMM
    names |= {c.name for c in default_configs() if c.ab == "e4m3"}  # test_every_default_kernel_every_element
    return sorted(names)


if __name__ == "__main__":
    print("\n".join(kernels_needed()))
