"""CPU tests of the ops' row padding (runtime/rowpad.py, ops/gemm.py `_plan`, ops/blockwise.py `_pad`): which calls
run on operands copied into whole M tiles, the rows the plan and the C++ fast path are given, the switch, and the
copies themselves (torch fallback; the extension's pad2d runs in tests/test_rowpad_gpu.py)."""
import pytest
import torch

from cutlass_gemm.kernels import blockwise_heuristics, heuristics
from cutlass_gemm.ops import blockwise as bops
from cutlass_gemm.ops import gemm as ops
from cutlass_gemm.runtime import extension, rowpad


class _Lib:
    """What _plan reads of a kernel library."""

    def __init__(self, m):
        self.m = m
        self._launch = object()
        self.function_address = 1
        self.workspace_address = 0
        self.scalar_scales_served = 3

        class _Cfg:
            scheduler = "persistent"
        self.config = _Cfg()


@pytest.fixture
def planner(monkeypatch):
    """_plan on a stand-in SM90 device: select_kernel records the rows it was asked for, the fast path records what it
    was taught."""
    asked, taught = [], []
    monkeypatch.setattr(ops, "kernel_sm", lambda dev: 90)
    monkeypatch.setattr(ops, "_plans", {})
    monkeypatch.setattr(ops.autotune, "enabled", lambda: False)
    monkeypatch.setattr(ops.gemv, "kernel", lambda cfg: None)

    def select(sm, variant, a_dtype, out_dtype, sa, sb, m, choice=None, activation="none", n=0, k=0):
        asked.append(m)
        return _Lib(m), sa, sb

    class _Fast:
        @staticmethod
        def register_plan(*args):
            taught.append(args)
    monkeypatch.setattr(ops, "select_kernel", select)
    monkeypatch.setattr(ops.fastpath, "module", lambda: _Fast)
    monkeypatch.delenv(rowpad.PAD_ENV, raising=False)
    return asked, taught


@pytest.mark.parametrize("dtype,ab", [(torch.int8, "int8"), (torch.float8_e4m3fn, "e4m3")])
@pytest.mark.parametrize("variant", ["scaled", "scaled_bias", "scaled_azp_per_token"])
@pytest.mark.parametrize("m,n,k", [(140, 22016, 4096), (395, 4096, 11008), (260, 8192, 8192), (905, 4104, 4112),
                                   (140, 28672, 4096), (200, 28672, 4096), (260, 4096, 4096)])
def test_mostly_empty_last_tiles_plan_whole_tiles(planner, dtype, ab, variant, m, n, k):
    """A call whose unpadded kernel would leave its last M unit >= 40% empty, fetching >= 10M out-of-bounds elements and
    >= 2x the bytes the copy moves (heuristics.OP_PAD), plans the kernel of padded_rows' rows, and the C++ fast path is
    taught those rows (its run_padded copies the operands). Session 63's set A, unpadded / padded time (int8): 1.53x at
    140 x 22016 x 4096, 1.40x at 260 x 8192^2, 1.21x / 1.22x at 140 / 200 x 28672 x 4096, 1.36x at 260 x 4096^2."""
    if variant.startswith("scaled_azp") and ab == "e4m3":
        pytest.skip("zero points are int8 only")
    asked, taught = planner
    rows = heuristics.padded_rows(90, m, n, ab, variant, "none", k)
    assert rows > m and rows % 64 == 0 and heuristics.op_padded_rows(90, m, n, ab, variant, "none", k) == rows
    plan = ops._plan(0, variant, dtype, torch.bfloat16, "token", "channel", m, n, k)
    assert plan[-1] == rows and asked == [rows] and plan[1].m == rows
    assert taught[-1][-1] == rows and taught[-1][6:9] == (m, n, k)  # keyed by the call's M, runs on `rows`


@pytest.mark.parametrize("m,n,k", [(m, 8192, 8192) for m in (1, 8, 256, 512, 1024, 2000, 4096)] + [
    (40, 8192, 8192), (100, 4096, 4096), (700, 4096, 4096), (1000, 8192, 8192),  # last unit < 40% empty: 0.86-0.96x
    (140, 2048, 2048), (1000, 2048, 2048),  # a fetch under 10M elements: 0.79-0.84x
    (655, 4096, 14336), (910, 3072, 8192)])  # fetch under 2x the copy (256-row units): 0.89-0.93x
def test_fuller_last_tiles_small_gemms_decode_and_large_m_are_not_padded(planner, m, n, k):
    """Figures: session 63's set A (tools/results/h200-2026-11-30/session63/call2), unpadded / padded time, int8."""
    asked, taught = planner
    plan = ops._plan(0, "scaled_bias", torch.int8, torch.bfloat16, "token", "channel", m, n, k)
    assert plan[-1] == m and asked == [m] and taught[-1][-1] == 0


def test_switch_off_by_environment(planner, monkeypatch):
    asked, taught = planner
    monkeypatch.setenv(rowpad.PAD_ENV, "0")
    assert not rowpad.enabled()
    plan = ops._plan(0, "scaled_bias", torch.int8, torch.bfloat16, "token", "channel", 140, 22016, 4096)
    assert plan[-1] == 140 and asked == [140] and taught[-1][-1] == 0


def test_an_autotuned_tile_runs_unpadded(planner, monkeypatch):
    """The autotuner times candidates on the call's own rows: its choice is not moved to padded rows."""
    asked, _ = planner
    monkeypatch.setattr(ops.autotune, "enabled", lambda: True)
    monkeypatch.setattr(ops, "_autotuned_choice", lambda *a: heuristics.choose_tile(90, 140, 22016, "int8", 4096))
    plan = ops._plan(0, "scaled_bias", torch.int8, torch.bfloat16, "token", "channel", 140, 22016, 4096,
                     timing_args=(None,) * 8)
    assert plan[-1] == 140 and asked == [140]


def test_sm80_never_pads(planner, monkeypatch):
    asked, _ = planner
    monkeypatch.setattr(ops, "kernel_sm", lambda dev: 80)
    plan = ops._plan(0, "scaled_bias", torch.int8, torch.bfloat16, "token", "channel", 140, 22016, 4096)
    assert plan[-1] == 140 and asked == [140]


@pytest.fixture
def no_extension(monkeypatch):
    monkeypatch.setattr(extension, "load", lambda: None)


def test_pad_into_copies_the_corner_and_zeroes_the_rest(no_extension):
    g = torch.Generator().manual_seed(0)
    big = torch.randint(-128, 127, (7, 48), dtype=torch.int8, generator=g)
    src = big[:, :40]  # a row stride (48) beyond the row (40)
    dst = torch.full((16, 40), 99, dtype=torch.int8)
    vec = torch.rand(7, generator=g)
    vdst = torch.full((1, 16), float("nan"))
    rowpad.pad_into([(src, dst), (vec.reshape(1, -1), vdst)])
    assert torch.equal(dst[:7], src) and not dst[7:].any()
    assert torch.equal(vdst[0, :7], vec) and not vdst[0, 7:].any()


def test_padded_returns_contiguous_rows(no_extension):
    a = torch.randn(5, 32)
    z = torch.arange(5, dtype=torch.int32)
    a_p, z_p = rowpad.padded([a, z], 64)
    assert a_p.shape == (64, 32) and a_p.is_contiguous() and torch.equal(a_p[:5], a) and not a_p[5:].any()
    assert z_p.shape == (64,) and torch.equal(z_p[:5], z) and not z_p[5:].any()


@pytest.mark.parametrize("major", ["k", "mn"])
def test_blockwise_pad_keeps_the_scale_layout(no_extension, major):
    """scaled_mm_blockwise pads a and scale_a into whole tiles, scale_a in the caller's layout (row-major, or column-major
    with M % 4 == 0 for the kernel's TMA), zero past M."""
    m, k, rows = 132, 512, 256
    a = torch.randn(m, k).to(torch.float8_e4m3fn)
    sa = torch.rand(m, k // 128)
    if major == "mn":
        sa = sa.t().contiguous().t()
    a_p, sa_p = bops._pad(a, sa, major, rows)
    assert a_p.shape == (rows, k) and torch.equal(a_p[:m].view(torch.uint8), a.view(torch.uint8))
    assert not a_p[m:].view(torch.uint8).any()
    assert sa_p.shape == (rows, k // 128) and torch.equal(sa_p[:m], sa) and not sa_p[m:].any()
    assert bops._sfa_major(sa_p, rows, k // 128) == major


def test_blockwise_op_pads_mostly_empty_last_tiles_of_large_gemms():
    """The fp8 op pads to its layer's rows (blockwise_heuristics.padded_rows) where heuristics.OP_PAD says: the
    unpadded kernel's last M unit >= 3/4 empty and N * K > 2^24; never the int8 family."""
    pr = blockwise_heuristics.op_padded_rows
    assert pr(132, "e4m3", 8192, 4096) == 256 and pr(260, "e4m3", 7168, 4096) == 384
    assert pr(520, "e4m3", 4104, 4096) == 640 and pr(132, "e4m3", 16392, 1152) == 256
    assert pr(600, "e4m3", 136, 4096) == 600 and pr(132, "e4m3", 4096, 4096) == 132  # small GEMMs
    assert pr(200, "e4m3", 8192, 8192) == 200 and pr(40, "e4m3", 8192, 8192) == 40  # fuller last units
    assert pr(256, "e4m3", 8192, 8192) == 256 and pr(2000, "e4m3", 8192, 8192) == 2000
    assert pr(132, "s8", 8192, 8192) == 132


def test_extension_builds_the_pad_kernel():
    assert "pad_rows.cu" in extension.SOURCES and "pad_rows.h" in extension.HASHED


@pytest.mark.parametrize("ab", ["int8", "e4m3"])
def test_the_layers_padded_rows_are_never_padded_again(ab):
    """A layer quantizes into padded_rows' whole tiles; the op then runs them as they are (no second copy), and the
    blockwise op likewise; every M of the band on seven shapes."""
    for n, k in ((8192, 8192), (28672, 4096), (4096, 4096), (7168, 2048), (14336, 4096), (4096, 14336), (2560, 8192)):
        for m in range(17, 1024, 7):
            rows = heuristics.padded_rows(90, m, n, ab, "scaled", "none", k)
            assert heuristics.op_padded_rows(90, rows, n, ab, "scaled", "none", k) == rows
            assert heuristics.op_padded_rows(90, m, n, ab, "scaled", "none", k) in (m, rows)
            brows = blockwise_heuristics.padded_rows(m, "e4m3", n)
            assert blockwise_heuristics.op_padded_rows(brows, "e4m3", n, k) == brows


def test_op_pad_rule_weighs_the_out_of_bounds_fetch_against_the_copy():
    """OpPadRule's bounds one by one (heuristics.OP_PAD's values): the empty share, the fetch's floor, and the fetch
    against the copied bytes, a test that does not depend on K (both sides scale with it)."""
    from cutlass_gemm.kernels.tile_rules import OpPadRule, column_units
    rule = OpPadRule(0.4, min_fetch=10_000_000, fetch_per_copied=2.0)
    assert rule == heuristics.OP_PAD[90]
    assert column_units((128, 128, 128), (1, 1, 1), 8192) == 64 and column_units((256, 128, 128), (1, 2, 1), 8200) == 33
    # 140 rows on 128-row units: 116 empty; 116 x 8192 x 64 = 60.8M fetched against (140 + 256) x 8192 = 3.2M copied
    assert rule.pads(140, 128, 256, 8192, 8192, 64)
    assert not rule.pads(100, 128, 128, 8192, 8192, 64)  # 28 of 128 empty: under 40%
    assert not rule.pads(140, 128, 256, 2048, 2048, 16)  # 116 x 2048 x 16 = 3.8M: under 10M
    # 910 rows on 256-row units, 12 column units: 11.2M fetched, over 10M, but under 2 x (910 + 1024) x 8192
    assert not rule.pads(910, 256, 1024, 3072, 8192, 12)
    for k in (8192, 65536):  # above the floor: out-of-bounds rows x column units >= 2 (M + rows), whatever K
        assert rule.pads(300, 128, 384, 8192, k, 17)  # 84 x 17 = 1428 >= 2 x 684
        assert not rule.pads(300, 128, 384, 8192, k, 16)  # 84 x 16 = 1344


def test_the_launchers_compute_the_padded_rows_and_store_m():
    """cg_launch's m_padded (GEMM launcher ABI 4) in the committed sources: an SM90 kernel builds its problem on
    max(m, m_padded) rows and remakes the output's TMA store descriptor for m rows after its params (so that a padded
    call writes the caller's `out` directly, no rows past it); an SM80 kernel takes the argument and computes m rows."""
    from pathlib import Path

    from cutlass_gemm.kernels.emit import GEMM_LAUNCHER_ABI_VERSION
    assert GEMM_LAUNCHER_ABI_VERSION == 4
    gen = Path(__file__).resolve().parents[1] / "generated"
    sm90 = (gen / "sm90" / "sm90_int8_bf16_scaled_bias_token_channel_t256x128x128_c1x2x1_cooperative_s0_a16x16x8.cu"
            ).read_text()
    launch = sm90[sm90.index("CG_EXPORT int cg_launch"):]
    assert "int scale_flags,\n                        int64_t m_padded)" in launch
    assert "const int64_t rows = m_padded > m ? m_padded : m;" in launch
    assert "make_args(a, b, d, rows, n, k," in launch
    params = launch.index("GemmKernel::to_underlying_arguments(args, workspace);")
    store = launch.index("params.epilogue.tma_store_d =")
    assert params < store < launch.index("return cg_run(")
    assert "cute::get<0>(stored) = static_cast<int>(m);" in launch[params:store]
    sm80 = next((gen / "sm80").glob("sm80_int8_bf16_scaled_bias_*.cu")).read_text()
    launch80 = sm80[sm80.index("CG_EXPORT int cg_launch"):]
    assert "int64_t m_padded)" in launch80 and "make_args(a, b, d, m, n, k," in launch80
    assert "tma_store_d" not in launch80
