"""CPU: the weight-only variant list and heuristics table (cutlass_gemm/ops/wo_heuristics.py) agree with the
kernels the extension compiles (runtime/csrc/wo_launch.cuh) and with the emulator's configurations; the
table lookup and its validation; the sweep tool's table builder."""
import re
import sys
from pathlib import Path

import pytest

from cutlass_gemm.ops import wo_heuristics as H

ROOT = Path(__file__).resolve().parents[1]
LAUNCH = ROOT / "cutlass_gemm" / "runtime" / "csrc" / "wo_launch.cuh"


def _cuh_variants():
    text = LAUNCH.read_text()
    listed = {int(i): (name, int(rows)) for i, name, rows in re.findall(r'\{(\d+), "([^"]+)", (\d+)\}', text)}
    cases = {}
    for vid, kind, args in re.findall(r"case (\d+): return (wo_kernel|ws_kernel|wd_kernel)<T, kBits, kZero, ([\d, ]+)>\(\);", text):
        cases[int(vid)] = (kind, tuple(int(a) for a in args.split(",")))
    return listed, cases


def test_variant_list_mirrors_the_cuda_table():
    listed, cases = _cuh_variants()
    assert listed == H.VARIANTS
    assert set(cases) == set(listed)
    for vid, (kind, args) in cases.items():
        name, rows = listed[vid]
        if kind == "ws_kernel":  # stream xR WNxWK sS <-> <R, WN, WK, S>
            assert name == f"stream x{args[0]} {args[1]}x{args[2]} s{args[3]}" and rows == args[0]
        elif kind == "wd_kernel":  # direct xR WNxWK uU tT <-> <R, WN, WK, U, T>
            assert name == f"direct x{args[0]} {args[1]}x{args[2]} u{args[3]} t{args[4]}" and rows == args[0]
        else:  # mma mtA WNxWK sS [bB] <-> <A, WN, WK, S[, B]>, 16 rows per m tile
            blocks = f" b{args[4]}" if len(args) > 4 else ""
            assert name == f"mma mt{args[0]} {args[1]}x{args[2]} s{args[3]}{blocks}" and rows == 16 * args[0]


def test_emulator_configs_are_the_same_kernels():
    text = (ROOT / "tests" / "wo_emu" / "emu.cpp").read_text()
    _, cases = _cuh_variants()
    emu = {int(c) - 100: tuple(int(a) for a in args.split(","))
           for c, args in re.findall(r"case (1\d\d): return run_(?:stream|direct)<T, kBits, kZero, ([\d, ]+)>", text)}
    assert emu == {v: a for v, (kind, a) in cases.items() if kind in ("ws_kernel", "wd_kernel")}


def test_select_variant_rules():
    table = ((4, 1, 8192, 8192, 5), (4, 16, 8192, 8192, 10), (4, 8, None, None, 7), (8, 64, None, None, 3))
    H.check_table(table)
    assert H.select_variant(1, 8192, 8192, 4, table) == 5
    assert H.select_variant(2, 8192, 8192, 4, table) == 10
    assert H.select_variant(8, 4096, 14336, 4, table) == 7
    assert H.select_variant(9, 4096, 14336, 4, table) == 0  # past every matching row
    assert H.select_variant(17, 8192, 8192, 4, table) == 0
    assert H.select_variant(40, 8192, 8192, 8, table) == 3
    assert H.select_variant(2, 1, 1, 4, ((4, 16, None, None, 5),)) == 0  # a row's variant must serve M
    if not H.TABLE:
        assert H.select_variant(3, 8192, 8192, 4) == H.DEFAULT  # the shipped table, empty: the default
    H.check_table()


@pytest.mark.parametrize("row", [(4, 16, None, None, 5), (3, 4, None, None, 1), (4, 65, None, None, 0),
                                 (8, 4, None, None, 99)])
def test_check_table_rejects(row):
    with pytest.raises(ValueError):
        H.check_table((row,))


def test_sweep_table_builder():
    sys.path.insert(0, str(ROOT / "tools"))
    import bench_wo_sweep as S
    rows = [{"bits": 4, "m": 1, "n": 8192, "k": 8192, "variant": 5, "us": 14.0, "flag": False},
            {"bits": 4, "m": 1, "n": 8192, "k": 8192, "variant": 0, "us": 20.0, "flag": False},
            {"bits": 4, "m": 16, "n": 8192, "k": 8192, "variant": 10, "us": 16.0, "flag": False},
            {"bits": 4, "m": 16, "n": 8192, "k": 8192, "variant": 7, "us": 12.0, "flag": True},  # flagged: never
            {"bits": 4, "m": 1, "n": 8192, "k": 8192, "variant": None, "us": 40.0, "flag": False}]
    table = S.table_rows(S.best_rows(rows), [1, 16])
    H.check_table(table)
    assert table == [(4, 1, 8192, 8192, 5), (4, 1, None, None, 5), (4, 16, 8192, 8192, 10), (4, 16, None, None, 10)]


def test_mixed_hand_off_depends_on_the_layer_shape():
    from cutlass_gemm.ops.weight_only import SMALL_M_MAX, mixed_from_m, small_m_limit
    from cutlass_gemm.ops.wo_heuristics import MIXED_FROM_M_MIN_N, MIXED_FROM_MIN
    assert MIXED_FROM_MIN == 33
    for bits in (4, 8):
        # the catch-all rows; narrow layers keep the small-M kernels (row blocks) to their limit
        assert mixed_from_m(bits, 28672, 4096) == mixed_from_m(bits, MIXED_FROM_M_MIN_N, 2048) == 33
        assert mixed_from_m(bits, MIXED_FROM_M_MIN_N) == 33  # k unknown: the catch-all
        assert mixed_from_m(bits, MIXED_FROM_M_MIN_N - 32, 4096) == small_m_limit(MIXED_FROM_M_MIN_N - 32, 4096) + 1 == 257
        assert mixed_from_m(bits, 512, 512) == small_m_limit(512, 512) + 1 == 513
        # session 46 (mixed kernels launched early, stream-K too): the catch-all from 33 rows, at 4096^2 from 65
        assert mixed_from_m(bits, 8192, 8192) == mixed_from_m(bits, 4096, 14336) == mixed_from_m(bits, 6144, 4096) == 33
        assert mixed_from_m(bits, 4096, 4096) == SMALL_M_MAX + 1


def test_small_m_rows_33_to_64():
    """Session 35's rows: the 3-m-tile variant 32 up to 48 rows (not int8 28672 x 4096), variant 34 at 4096^2 to 64;
    every variant picked serves the call's rows (on narrow layers an mma variant, as row blocks)."""
    for bits in (4, 8):
        for m in (33, 40, 48):
            assert H.select_variant(m, 8192, 8192, bits) == 32
            assert H.select_variant(m, 1024, 4096, bits) == H.row_block_variant(m, 1024, 4096) == 28  # narrow: row rules
        for m in (49, 64):
            assert H.select_variant(m, 4096, 4096, bits) == 34
            assert H.select_variant(m, 8192, 8192, bits) in (0, 3)
    assert H.select_variant(40, 28672, 4096, 8) == 0
    for bits in (4, 8):
        for m in range(1, 65):
            for n, k in ((8192, 8192), (4096, 4096), (28672, 4096), (4096, 14336), (1024, 4096)):
                v = H.select_variant(m, n, k, bits)
                assert m <= H.variant_rows(v) or (n < H.MIXED_FROM_M_MIN_N and H.VARIANTS[v][0].startswith("mma"))


def test_row_block_rules():
    """Narrow layers (N < 4096): the mma variants' row blocks from 33 rows to max(256, 2^27 / (N * K)), the variant
    by K and N * K (session40/call1/rows/rows.md); wide layers keep 64 rows."""
    assert H.row_block_limit(8192, 8192) == H.row_block_limit(4096, 64) == H.MAX_M
    assert H.row_block_limit(64, 64) == 2 ** 27 // 4096 and H.row_block_limit(2048, 8192) == 256
    assert H.row_block_limit(1024, None) == 256
    # the batch-1 ResNet-50 1x1 convs: every one is served, by the variant the sweep found best or within 8% of it
    convs = {(3136, 64, 64): 2, (3136, 256, 64): 3, (3136, 64, 256): 28, (3136, 128, 256): 28, (784, 512, 128): 2,
             (784, 128, 512): 1, (784, 256, 512): 1, (196, 1024, 256): 28, (196, 256, 1024): 1, (196, 512, 1024): 1,
             (49, 2048, 512): 1, (49, 512, 2048): 1}
    for (m, n, k), variant in convs.items():
        assert H.row_block_limit(n, k) >= m
        assert H.select_variant(m, n, k, 4) == H.select_variant(m, n, k, 8) == variant
    assert H.select_variant(128, 1024, 4096, 4) == 28 and H.select_variant(32, 1024, 4096, 4) == 28  # the table's row
    assert H.select_variant(16, 64, 64, 4) == H.select_variant(16, 64, 64, 4, H.TABLE)  # up to 32 rows: the table
    for n, k in ((64, 64), (1024, 4096), (2048, 8192)):
        variant = H.select_variant(H.row_block_limit(n, k), n, k, 4)
        assert variant in H.VARIANTS and H.VARIANTS[variant][0].startswith("mma")  # only the mma kernels have row blocks


def test_the_mixed_kernel_check_traces_as_a_constant(monkeypatch):
    """WeightOnlyLinear.forward asks ops.weight_only.mixed_usable; under torch.compile(fullgraph=True) it must be
    read as its value (no graph break, no tracing into the device query)."""
    import functools
    import torch
    from cutlass_gemm.ops import weight_only as w
    monkeypatch.setattr(w, "_is_sm90", functools.lru_cache(maxsize=None)(lambda index: True))  # no GPU here
    monkeypatch.setenv(w.MIXED_INPUT_ENV, "1")

    def f(x):
        return x + 1 if w.mixed_usable(torch.device("cuda", 0)) else x - 1
    assert torch.equal(torch.compile(f, fullgraph=True)(torch.ones(2)), torch.full((2,), 2.0))
