"""heuristics.PARTIAL (session 61): a caller's unpadded M that leaves the table tile's last M unit mostly empty takes
the 256 x 128 c1x2 tile (its cluster multicasts the A tile, halving the out-of-bounds rows TMA fetches through L2), and
nothing else moves: whole-tile M, the layers' padded rows and the kernel set stay as they were (CPU only). The rule also
asks that the 256-row tile's waves cost no more (tile_rules.wave_cost)."""
import pytest

from cutlass_gemm.kernels import heuristics
from cutlass_gemm.kernels.tile_rules import (PartialRule, TileChoice, ctas, m_unit, out_of_bounds, partial_choice,
                                             wave_cost)

T64, T128, T256 = (64, 128, 128), (128, 128, 128), (256, 128, 128)
SHAPES = [(8192, 8192), (28672, 4096), (4096, 4096), (7168, 2048), (14336, 4096), (4096, 14336), (2560, 8192)]

#: (M, N, K, tile) from tools/results/h200-2026-11-29/session61 (oob_rows.py, H200, int8 and e4m3): where the rule
#: moves the call the 256-row tile was 1.14-1.42x faster (call 4, out of sample) or 1.08-1.40x (call 2); where it does
#: not, the table's tile stays: the 256-row tile was slower there or its waves would cost more.
MEASURED = [
    (132, 28672, 4096, T256), (160, 28672, 4096, T256), (900, 28672, 4096, T256), (900, 4096, 4096, T256),
    (400, 7168, 2048, T256), (140, 13824, 5120, T256), (655, 22016, 4096, T256), (910, 12288, 4096, T256),
    (132, 8192, 8192, T128),  # 64 CTAs on the 256-row tile
    (132, 4096, 4096, T64), (160, 7168, 2048, T128),  # 16 / 56 CTAs: 22.1 / 13.2 us against 12.2 / 10.7
    (200, 28672, 4096, T128),  # last unit 56 of 128 rows empty: under the rule's three quarters
    (700, 7168, 2048, T128), (700, 28672, 4096, T128),  # a third empty: the 256-row tile 1.04-1.27x slower
    (650, 6144, 4096, T128), (665, 7168, 2048, T128),  # its waves cost 1.33x: 0.83-0.88x in call 3
    (400, 28672, 4096, T128),  # waves 1.14x (1.25x faster in call 2, but 920 x 14336 x 4096 at 1.14x: 0.94x)
]


@pytest.mark.parametrize("m,n,k,tile", MEASURED)
def test_partial_rule_takes_the_measured_tile(m, n, k, tile):
    for ab in ("int8", "e4m3"):
        assert heuristics.choose_tile(90, m, n, ab, k).tile == tile, (m, n, k, ab)


def test_whole_tiles_and_padded_rows_never_move(monkeypatch):
    """At whole-tile M (the layers' padded rows) the rule never applies, so padded_rows and the tile the layers run are
    the same with and without it; without N (unknown) it never applies either."""
    ms = range(17, 1100)
    with_rule = {(m, n, k, ab): (heuristics.padded_rows(90, m, n, ab, k=k),
                                 heuristics.choose_tile(90, heuristics.padded_rows(90, m, n, ab, k=k), n, ab, k))
                 for m in ms for n, k in SHAPES for ab in ("int8", "e4m3")}
    monkeypatch.setattr(heuristics, "PARTIAL", {})
    without = {key: (heuristics.padded_rows(90, key[0], key[1], key[3], k=key[2]),
                     heuristics.choose_tile(90, heuristics.padded_rows(90, key[0], key[1], key[3], k=key[2]),
                                            key[1], key[3], key[2])) for key in with_rule}
    assert with_rule == without


def test_the_rule_only_moves_calls_inside_its_band():
    """Every call the rule moves: 129..1024 rows, N known, the table tile's last unit >= 3/4 empty, the 256-row tile's
    no emptier, >= 100 CTAs and waves that cost no more; its tile is in the default kernel set (built ahead); without N
nothing moves."""
    rule = heuristics.PARTIAL[90][0]
    assert rule.large in heuristics.table_tiles(90)
    moved = [(m, n, k) for m in range(1, 2100) for n, k in SHAPES
             if heuristics.choose_tile(90, m, n, "int8", k) != _without_rule(m, n, k)]
    assert moved, "the rule moves some calls"
    for m, n, k in moved:
        small = _without_rule(m, n, k)
        assert 129 <= m <= 1024 and n > 0
        assert out_of_bounds(small, m) >= 0.75 * m_unit(small)
        assert out_of_bounds(rule.large, m) <= out_of_bounds(small, m)
        assert ctas(rule.large, m, n) >= 100
        assert wave_cost(132, rule.large, m, n) <= wave_cost(132, small, m, n)
        assert heuristics.choose_tile(90, m, n, "int8", k) == rule.large
    assert all(heuristics.choose_tile(90, m, 0, "int8", 0) == _without_rule(m, 0, 0) for m in range(1, 2100))


def _without_rule(m, n, k):
    saved = heuristics.PARTIAL
    heuristics.PARTIAL = {}
    try:
        return heuristics.choose_tile(90, m, n, "int8", k)
    finally:
        heuristics.PARTIAL = saved


def test_partial_choice_arithmetic():
    small, large = TileChoice(T128), TileChoice(T256, (1, 2, 1), "cooperative")
    rules = [PartialRule(129, 1024, (small,), large, 0.75, 100, 1.0)]
    assert out_of_bounds(small, 132) == 124 and out_of_bounds(large, 132) == 124 and m_unit(large) == 256
    assert partial_choice(rules, 132, small, 132, 28672) == large     # 224 CTAs, waves cost the same
    assert partial_choice(rules, 132, small, 132, 8192) == small      # 64 CTAs
    assert partial_choice(rules, 132, small, 161, 28672) == small     # 95 of 128 rows empty
    assert partial_choice(rules, 132, small, 260, 28672) == small     # the 256-row tile would be emptier (252 rows)
    assert partial_choice(rules, 132, small, 132, 0) == small         # N unknown
    assert partial_choice(rules, 132, large, 132, 28672) == large     # not one of the rule's small tiles
    assert partial_choice(rules, 132, small, 650, 6144) == small      # 2 waves of 2-CTA clusters against 3 of 128
    assert partial_choice(rules, 264, small, 650, 6144) == large      # on twice the SMs: 1 wave against 2
