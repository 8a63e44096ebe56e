"""Which tile serves which problem, per SM, as plain data; and the default kernel set derived from it.

`SELECTION[sm]` lists (max_m, TileChoice) rows in increasing max_m; the first row whose max_m >= M
wins (None = no bound). The default kernel set is exactly the tiles the table uses, for every
variant and output dtype, so a test can check that every selectable kernel is generated.

First choices (2026-11-22), from FINDINGS.md: on the H100 a 128x128x128 pingpong tile with a 1x2
cluster reached 843 TOPS at 8192^3; some cooperative 64-row and 32-row pingpong SM90 tiles do not
compile with the EVT epilogue, so none is used. Small-M rows keep 64-row tiles (wgmma's minimum)
and narrow N so that decode shapes spread over more SMs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .config import OUTPUT_DTYPES, VARIANTS, KernelConfig


@dataclass(frozen=True)
class TileChoice:
    tile: Tuple[int, int, int]
    cluster: Tuple[int, int, int] = (1, 1, 1)
    schedule: str = "pingpong"
    stages: int = 0


SELECTION: Dict[int, List[Tuple[Optional[int], TileChoice]]] = {
    90: [
        (64, TileChoice((64, 64, 128), (1, 1, 1), "pingpong")),
        (256, TileChoice((64, 128, 128), (2, 1, 1), "pingpong")),
        (None, TileChoice((128, 128, 128), (1, 2, 1), "pingpong")),
    ],
    80: [
        (32, TileChoice((32, 128, 128), schedule="multistage", stages=4)),
        (256, TileChoice((128, 128, 64), schedule="multistage", stages=5)),
        (None, TileChoice((256, 128, 64), schedule="multistage", stages=3)),
    ],
}

#: SMs with a default kernel set (SM89 joins when its fp8 kernels do).
DEFAULT_SMS = tuple(sorted(SELECTION))


def choose_tile(sm: int, m: int) -> TileChoice:
    for max_m, choice in SELECTION[sm]:
        if max_m is None or m <= max_m:
            return choice
    raise AssertionError("SELECTION rows must end with an unbounded row")


def make_config(sm: int, variant: str, out_dtype: str, choice: TileChoice, *, a_dtype: str = "int8",
                scale_a: str = "token", scale_b: str = "channel") -> KernelConfig:
    return KernelConfig(sm=sm, a_dtype=a_dtype, out_dtype=out_dtype, variant=variant, scale_a=scale_a,
                        scale_b=scale_b, tile=choice.tile, cluster=choice.cluster, schedule=choice.schedule,
                        stages=choice.stages)


#: Input dtypes with a default kernel set, per SM; fp8 takes the symmetric (non-azp) epilogues only.
INPUT_DTYPES_BY_SM = {90: ("int8", "e4m3"), 80: ("int8",)}
FP8_VARIANTS = ("scaled", "scaled_bias")


def default_configs(sm: int, variants=VARIANTS) -> List[KernelConfig]:
    """The default kernel set for `sm`: every variant x output dtype x tile of the table (fp8: the
    scaled variants), with per-token/per-channel scales (per-tensor scales are served by
    broadcasting them to vectors)."""
    if sm not in SELECTION:
        raise ValueError(f"no default kernel set for SM{sm}; known: {DEFAULT_SMS}")
    tiles = []
    for _, choice in SELECTION[sm]:
        if choice not in tiles:
            tiles.append(choice)
    configs = set()
    for a_dtype in INPUT_DTYPES_BY_SM[sm]:
        for v in variants:
            if a_dtype != "int8" and v not in FP8_VARIANTS:
                continue
            configs |= {make_config(sm, v, o, t, a_dtype=a_dtype) for o in OUTPUT_DTYPES for t in tiles}
    return sorted(configs, key=lambda c: c.name)
