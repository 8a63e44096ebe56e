"""Which weight-only small-M kernel variant serves a call, as plain data.

The extension's weight-only GEMM has several compiled variants (runtime/csrc/wo_launch.cuh,
`kWoVariants`): the shared-memory mma kernel of wo_gemm.cuh in four CTA shapes, the per-warp
"stream" kernels of wo_stream.cuh (x rows R, warps N x K, ring stages S) and the register-fed "direct" kernels of
wo_direct.cuh (x rows R, warps N x K, U warp tiles per register buffer, T resident threads per SM). `VARIANTS` mirrors that list
(a CPU test checks the two agree); `TABLE` maps (bits, M range, N, K) to a variant id and is filled from
the H100 sweep (`tools/bench_wo_sweep.py`, which prints the rows to paste). Variant 0 is the kernel's
built-in choice by M (wo_default_kernel), what every call not matched by a row takes.
"""
from __future__ import annotations

import functools
from typing import Dict, Optional, Tuple

#: id -> (name, M capacity), as wo_launch.cuh's kWoVariants.
VARIANTS: Dict[int, Tuple[str, int]] = {
    1: ("mma mt1 1x4 s4", 16), 2: ("mma mt2 4x1 s4", 32), 3: ("mma mt4 4x1 s3", 64), 4: ("mma mt1 2x4 s4", 16),
    5: ("stream x1 4x1 s8", 1), 6: ("stream x4 4x1 s8", 4), 7: ("stream x8 4x1 s6", 8),
    8: ("stream x8 8x1 s4", 8), 9: ("stream x8 2x2 s6", 8), 10: ("stream x16 4x1 s4", 16),
    11: ("stream x16 8x1 s3", 16), 12: ("stream x32 4x1 s3", 32), 13: ("stream x64 4x1 s2", 64),
    14: ("direct x1 1x4 u1 t1024", 1), 15: ("direct x1 4x2 u1 t768", 1), 16: ("direct x8 4x2 u1 t1024", 8), 17: ("direct x8 4x2 u1 t768", 8), 18: ("direct x16 4x2 u1 t768", 16), 19: ("direct x8 2x4 u1 t1024", 8),
    20: ("direct x16 2x4 u2 t512", 16), 21: ("direct x16 4x2 u2 t512", 16), 22: ("direct x16 4x2 u1 t512", 16),
    23: ("direct x1 1x16 u1 t1024", 1), 24: ("direct x16 1x8 u1 t512", 16), 25: ("direct x8 1x16 u1 t1024", 8),
    26: ("direct x1 1x8 u1 t1024", 1),
}
DEFAULT = 0
MAX_M = 64

#: Most rows of x the small-M kernel takes when the layer also holds the SM90 mixed-input copy of its weight
#: (`large_m_backend="cutlass_mixed"`); above it that copy's kernel takes the call. H100 sweep
#: (tools/bench_mixed_sweep.py, session14/call1-2): at M = 16 the small-M kernel wins every shape (int4 g128
#: 2.43-2.71x bf16 against 1.80-2.26x; int8 1.54-1.90x against 1.28-1.69x, call 1); at M = 32 the mixed kernels win
#: at 8192x8192 and 28672x4096 (int4 1.80-2.19x against 1.47-2.13x; int8 at all three shapes) and are 1-5% behind
#: for int4 at 4096x14336 (27.1 / 26.0 us against 25.7 / 25.8); from M = 64 they win every shape. One hand-off
#: for all shapes: M = 17.
MIXED_FROM_M = {4: 17, 8: 17}
#: ... for layers with at least this many output features; narrower ones keep the small-M kernel up to its 64 rows
#: (batch-1 ResNet-50 1x1 convs, N 64..2048: session14/call6, see kernels/mixed_input.SMALL_N).
MIXED_FROM_M_MIN_N = 4096

#: (bits, max_m, n, k, variant): the first row with this bits, max_m >= M, and n / k equal to the call's
#: (None: any) wins; rows of one bits value in increasing max_m, exact shapes before the catch-all rows.
#: M <= 16: from tools/results/h100-2026-11-27/session22/call3/sweep/wo_sweep.md (H100, bf16 x, int4 g128 / int8 per
#: channel, every variant at M = 1 / 4 / 8 / 16, the plan's own split count, every kernel launched as a programmatic
#: dependent with its CTAs spread evenly over the SMs, the default since session 22 (wo_launch.cuh): the int8 rows at
#: M = 16 moved to variant 22 (direct x16 at 512 threads per SM, 104 registers; variant 18 at 768 spills 60 bytes):
#: W8A16 16 x 8192^2 28.36 us (v0) -> 26.94, 16 x 4096 x 14336 27.87 (v18) -> 25.43; the mma / stream kernels, plain
#: launches before, win some rows again (int8 4 x 8192^2 v0, 16 x 28672 x 4096 v10). The None rows are that sweep's
#: most frequent winner per bits and M bucket. M <= 64: session 7's sweep
#: (tools/results/h100-2026-11-23/session7/call3/wo/wo_sweep.md).
TABLE: Tuple[Tuple[int, int, Optional[int], Optional[int], int], ...] = (
    (4, 1, 4096, 14336, 26),
    (4, 1, 8192, 8192, 23),
    (4, 1, 28672, 4096, 14),
    (4, 1, None, None, 26),
    (4, 4, 4096, 14336, 19),
    (4, 4, 8192, 8192, 19),
    (4, 4, 28672, 4096, 16),
    (4, 4, None, None, 19),
    (4, 8, 4096, 14336, 19),
    (4, 8, 8192, 8192, 16),
    (4, 8, 28672, 4096, 16),
    (4, 8, None, None, 16),
    (4, 16, 4096, 14336, 4),
    (4, 16, 8192, 8192, 22),
    (4, 16, 28672, 4096, 4),
    (4, 16, None, None, 4),
    (4, 64, 4096, 14336, 0),
    (4, 64, 8192, 8192, 3),
    (4, 64, 28672, 4096, 0),
    (4, 64, None, None, 0),
    (8, 1, 4096, 14336, 26),
    (8, 1, 8192, 8192, 23),
    (8, 1, 28672, 4096, 15),
    (8, 1, None, None, 26),
    (8, 4, 4096, 14336, 17),
    (8, 4, 8192, 8192, 0),
    (8, 4, 28672, 4096, 17),
    (8, 4, None, None, 17),
    (8, 8, 4096, 14336, 17),
    (8, 8, 8192, 8192, 22),
    (8, 8, 28672, 4096, 17),
    (8, 8, None, None, 17),
    (8, 16, 4096, 14336, 22),
    (8, 16, 8192, 8192, 22),
    (8, 16, 28672, 4096, 10),
    (8, 16, None, None, 22),
    (8, 64, 4096, 14336, 0),
    (8, 64, 8192, 8192, 0),
    (8, 64, 28672, 4096, 3),
    (8, 64, None, None, 0),
)



def variant_rows(variant: int, m: int = 1) -> int:
    """M capacity of `variant` (0: MAX_M, the default kernel serves every M <= 64)."""
    return MAX_M if variant == DEFAULT else VARIANTS[variant][1]


def select_variant(m: int, n: int, k: int, bits: int, table=None) -> int:
    """The variant id for an (m, n, k) call on a `bits`-bit weight: the table's first matching row whose
    variant serves m, else 0. Pure host arithmetic on Python ints (no device query, no sync)."""
    for row_bits, max_m, rn, rk, variant in (TABLE if table is None else table):
        if row_bits == bits and m <= max_m and (rn is None or rn == n) and (rk is None or rk == k) \
                and m <= variant_rows(variant):
            return variant
    return DEFAULT


@functools.lru_cache(maxsize=4096)
def select_variant_cached(m: int, n: int, k: int, bits: int) -> int:
    """select_variant on the module's TABLE, memoized (the eager layer path asks it once per call)."""
    return select_variant(m, n, k, bits)


def check_table(table=None) -> None:
    """Raise ValueError on a row naming an unknown variant, one whose variant cannot serve its M range,
    or bits outside {4, 8}."""
    for row in (TABLE if table is None else table):
        bits, max_m, _, _, variant = row
        if bits not in (4, 8) or not 1 <= max_m <= MAX_M:
            raise ValueError(f"bad row {row}: bits must be 4 or 8 and 1 <= max_m <= {MAX_M}")
        if variant != DEFAULT and variant not in VARIANTS:
            raise ValueError(f"bad row {row}: unknown variant {variant}")
        if max_m > variant_rows(variant):
            raise ValueError(f"bad row {row}: variant {variant} serves M <= {variant_rows(variant)} only")
