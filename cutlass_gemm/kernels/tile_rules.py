"""The shape of a tile choice and the rules that move a problem from the selection table's tile to another: the types
and their arithmetic, no data (kernels/heuristics.py holds the tables: SELECTION, WAVES, PARTIAL, ...)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Tuple


@dataclass(frozen=True)
class TileChoice:
    """A kernel's shape: tile, cluster, schedule, stages and (SM90 cooperative only) the tile scheduler
    ("persistent", "streamk", or "splitk" with `splits` K slices; see config.SCHEDULERS)."""
    tile: Tuple[int, int, int]
    cluster: Tuple[int, int, int] = (1, 1, 1)
    schedule: str = "pingpong"
    stages: int = 0
    scheduler: str = "persistent"
    splits: int = 1


@dataclass(frozen=True)
class WaveRule:
    """Where the SELECTION row's tile is `small`, min_m <= M <= max_m, K >= min_k and N is known, `large` (more rows per
    CTA) takes the problem when waves(large) * area(large) <= waves(small) * area(small) * factor: the time of its waves
    against the small tile's, `factor` being how much more the small tile costs per unit of work. waves(t): t's
    clusters over the clusters the GPU's SMs hold at once, rounded up."""
    min_m: int
    max_m: int
    min_k: int
    small: TileChoice
    large: TileChoice
    factor: float


@dataclass(frozen=True)
class PartialRule:
    """Where M (min_m..max_m, N known) leaves the last M unit (M tile x cluster M) of the table's tile, one of `smalls`,
    at least `min_empty` out of bounds (a caller's unpadded rows; the layers pad them away, heuristics.padded_rows),
    `large` takes the problem when its own last unit leaves no more rows out of bounds, it makes at least `min_ctas`
    CTAs and its waves cost at most `wave_factor` times the small tile's (wave_cost)."""
    min_m: int
    max_m: int
    smalls: Tuple[TileChoice, ...]
    large: TileChoice
    min_empty: float
    min_ctas: int
    wave_factor: float


@dataclass(frozen=True)
class OpPadRule:
    """Where an op copies a caller's unpadded rows into whole M tiles before the GEMM (runtime/rowpad.py). The loss it
    avoids grows with what the last M unit's out-of-bounds rows make the TMA fetch, `fetch` = out-of-bounds rows x K x
    the grid's column units (each cluster across N loads the unit's A rows once); the copy costs a microsecond or two
    plus its bytes, (M + padded rows) x K. The rule pads where the last unit is at least `min_empty` out of bounds,
    N * K exceeds `min_nk`, `fetch` reaches `min_fetch` and `fetch_per_copied` times the copied bytes."""
    min_empty: float
    min_nk: int = 0
    min_fetch: int = 0
    fetch_per_copied: float = 0.0

    def pads(self, m: int, unit: int, rows: int, n: int, k: int, column_units: int = 1) -> bool:
        """Whether an M x N x K call, padded to `rows`, whose unpadded kernel covers `unit` rows per cluster and
        `column_units` clusters across N, is padded."""
        empty = (-m) % unit
        fetch = empty * k * column_units
        return (n * k > self.min_nk and empty >= self.min_empty * unit and fetch >= self.min_fetch
                and fetch >= self.fetch_per_copied * (m + rows) * k)


def column_units(tile: Tuple[int, int, int], cluster: Tuple[int, int, int], n: int) -> int:
    """Clusters across N columns: a grid row of the M unit (each loads the unit's A rows once, multicast inside it)."""
    return -(-n // (tile[1] * cluster[1]))


def ctas(choice: TileChoice, m: int, n: int) -> int:
    """CTAs of an M x N problem on `choice`'s tile."""
    return -(-m // choice.tile[0]) * -(-n // choice.tile[1])


def m_unit(choice: TileChoice) -> int:
    """The rows one cluster covers: the M tile times the cluster's M."""
    return choice.tile[0] * choice.cluster[0]


def out_of_bounds(choice: TileChoice, m: int) -> int:
    """Rows of the last M unit beyond M: what a TMA load still fetches for them (PartialRule)."""
    return -(-m // m_unit(choice)) * m_unit(choice) - m


def wave_cost(sms: int, choice: TileChoice, m: int, n: int) -> int:
    """waves(choice) * its tile's area for an M x N problem on `sms` SMs (WaveRule)."""
    (tm, tn, _), (cm, cn, _) = choice.tile, choice.cluster
    clusters = -(-m // (tm * cm)) * -(-n // (tn * cn))
    waves = -(-clusters // max(1, sms // (cm * cn)))
    return waves * tm * tn


def wave_choice(rules: Iterable[WaveRule], sms: int, choice: TileChoice, m: int, n: int, k: int) -> TileChoice:
    """`choice`, or the large tile of the WaveRules that apply, in order."""
    for rule in rules:
        if (choice == rule.small and rule.min_m <= m <= rule.max_m and k >= rule.min_k and n > 0
                and wave_cost(sms, rule.large, m, n) <= wave_cost(sms, rule.small, m, n) * rule.factor):
            choice = rule.large
    return choice


def partial_choice(rules: Iterable[PartialRule], sms: int, choice: TileChoice, m: int, n: int) -> TileChoice:
    """`choice`, or the large tile of the first PartialRule that applies on `sms` SMs."""
    for rule in rules:
        if (choice in rule.smalls and rule.min_m <= m <= rule.max_m and n > 0
                and out_of_bounds(choice, m) >= rule.min_empty * m_unit(choice)
                and out_of_bounds(rule.large, m) <= out_of_bounds(choice, m)
                and ctas(rule.large, m, n) >= rule.min_ctas
                and wave_cost(sms, rule.large, m, n) <= wave_cost(sms, choice, m, n) * rule.wave_factor):
            return rule.large
    return choice
