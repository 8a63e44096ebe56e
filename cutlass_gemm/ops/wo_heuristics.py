"""Which weight-only small-M kernel variant serves a call, as plain data.

The extension's weight-only GEMM has several compiled variants (runtime/csrc/wo_launch.cuh,
`kWoVariants`): the shared-memory mma kernel of wo_gemm.cuh in eight CTA shapes, the per-warp
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
    26: ("direct x1 1x8 u1 t1024", 1), 27: ("mma mt2 4x2 s3", 32), 28: ("mma mt2 2x4 s3", 32),
    32: ("mma mt3 4x2 s3", 48), 34: ("mma mt4 2x4 s3 b2", 64),
}
DEFAULT = 0
MAX_M = 64

#: Rows from which a layer that also holds the SM90 mixed-input copy of its weight (`large_m_backend="cutlass_mixed"`)
#: calls that copy's kernel instead of the small-M kernel: (bits, n, k, from_m), the first row with the layer's bits and
#: n / k (None: any) wins. Session 14's sweep (tools/bench_mixed_sweep.py, session14/call1-2) put the hand-off at 17
#: rows; since the small-M kernels are launched as programmatic dependents (sessions 21-22) they win again up to 32
#: rows:
#: session33/call4/handoff.md (H100, bf16 x, one process, alternating): int4 g128 M = 17 / 24 / 32, small-M variant 2
#: against the mixed kernel, 8192^2 24.8 / 24.7 / 25.2 us against 27.2 / 27.1 / 27.2, 4096 x 14336 24.7 / 24.7 / 25.2
#: against 26.5 / 26.4 / 26.7, 28672 x 4096 40.6 / 41.3 / 42.5 against 40.9 / 41.2 / 41.5; int8 per channel (variant 12,
#: variant 2 at 28672 x 4096) 34.1 / 34.2 / 35.1 against 38.2 / 37.9 / 38.0 at 8192^2, 32.1 / 32.5 / 32.8 against 35.6 /
#: 35.1 / 35.4 at 4096 x 14336, 55.8 / 56.6 / 57.5 against 60.7 / 58.3 / 56.2 at 28672 x 4096: the catch-all rows, 33.
#: Per shape since session 35 (tools/results/h100-2026-11-28/session35/call1-2/handoff.md, two machines, same harness):
#: the 3-m-tile CTA of variant 32 holds 33..48 rows, ahead of the mixed kernel at 8192^2 (int4 28.5-29.9 us against
#: 29.6-30.3), 4096 x 14336 (27.3-28.1 against 29.7-30.4), 6144 x 4096 (16.7-17.1 against 19.7-19.9) and 4096 x 4096
#: (14.0-14.1 against 18.7-19.0), int8 likewise except 8192^2 at 48 rows (34.8 / 36.5 against 35.9 / 36.0: even); and
#: at 4096 x 4096 variant 34 holds 49..64 rows (call 2: int4 15.8-16.0 against 18.8-19.0, int8 16.9-17.1 against
#: 19.2-19.3).
#: At 28672 x 4096 and 14336 x 4096, and from 49 rows elsewhere, the mixed kernel stays ahead.
#: A warpgroup-MMA small-M kernel (session 36, commit 73328ba, removed after) did not change that: 30.9-32 us at 64 x
#: 8192^2 against the mixed kernel's 29.8-30.2 (tools/results/h100-2026-11-28/session36/README.md).
#: Session 46: the stream-K mixed kernels (every one serving up to 256-512 rows) launched as programmatic dependents
#: (their workspace cleared by a programmatic fill kernel, kernels/emit_streamk.py), 2.4-4.4 us less per call in CUDA
#: graphs. Measured again on an H200 (no H100 lent; tools/results/h200-2026-11-28/session46/call3/handoff.json, graphs,
#: alternating): at 40 / 48 rows the mixed kernel is ahead of the 3-m-tile small-M kernel by 9-12% at 8192^2, 15-17%
#: at 4096 x 14336, 4-7% at 6144 x 4096 (int4) and 15-24%, 18-25%, 15-19% (int8); at 4096^2 the small-M kernels stay
#: ahead to 48 rows (int4 to 64). So 33 rows everywhere but 4096^2. (At 17..32 rows the int4 mixed kernel is ahead there
#: too, 4-11%, but on the H100 the small-M kernels led by ~9% there before this change, about what it gained: not moved.)
MIXED_FROM: Tuple[Tuple[int, Optional[int], Optional[int], int], ...] = tuple(
    (bits, n, k, from_m) for bits in (4, 8) for n, k, from_m in ((4096, 4096, 65), (None, None, 33)))
#: ... for layers with at least this many output features; narrower ones keep the small-M kernel up to its 64 rows
#: (batch-1 ResNet-50 1x1 convs, N 64..2048: session14/call6, see kernels/mixed_input.SMALL_N).
MIXED_FROM_M_MIN_N = 4096
#: The fewest rows any layer hands to its mixed-input copy.
MIXED_FROM_MIN = min(row[3] for row in MIXED_FROM)

#: Row blocks (session 40): the mma kernels (wo_gemm.cuh) serve M above their CTA's rows as ceil(M / rows) blocks along
#: the grid's z dimension, each block re-reading the layer's weight (from L2 after the first). On narrow layers
#: (N < MIXED_FROM_M_MIN_N) that beat every other path at few rows: tools/results/h200-2026-11-28/session40/call1/rows/
#: rows.md (H200, fp16, int4 g128 / g64, one process): the batch-1 ResNet-50 1x1 convs (M = 49 .. 3136 pixel rows, N and
#: K 64 .. 2048) at 2.2-6.8 us against cuDNN fp16's 4.9-8.7 (1.28-2.38x) and the mixed-input kernel's 4.4-11.6; linear
#: layers of 1024 / 2048 outputs at 128 and 256 rows 9.4-35.6 us against the mixed kernel's 14.8-46.2 (0.71-0.89x of
#: cuBLAS fp16 there at 128 rows). With more rows the blocks' weight re-reads and dequantization add up: beyond 256 rows
#: the mixed kernel was ahead at every shape of 2^28 (268M) multiply-adds or more (call5/large/large.md: batch-8 / 32
#: conv and 512..4096-row linear shapes, 1.1-3.6x faster there; 25088 x 64 x 64, 103M, 1.65x slower), so the bound is
#: 2^27, which every batch-1 conv (<= 103M) is under.
#: Narrow layers take the row-block rules from ROW_BLOCKS_FROM_M rows up to row_block_limit(N, K).
ROW_BLOCKS_FROM_M = 33
ROW_BLOCK_ALWAYS_M = 256
ROW_BLOCK_MAX_MNK = 1 << 27
#: (k_max, nk_max, variant): the first rule with K <= k_max and N * K <= nk_max (None: any) names the variant. From the
#: same sweep: 32 x 128-column CTAs (variant 2) where K <= 128, 32 x 64 with K over 4 warps (28) at K = 256, 16 x 32 with
#: K over 4 warps (1) for weights up to 2^20 elements, 28 again beyond; then ROW_BLOCK_TALL. Each choice is within 8% of
#: the sweep's best variant at every measured shape but 256 x 2048 x 8192 (13%).
ROW_BLOCK_RULES: Tuple[Tuple[Optional[int], Optional[int], int], ...] = (
    (128, None, 2), (256, None, 28), (None, 1 << 20, 1), (None, None, 28))
#: (variant, taller variant, its columns, its rows): the taller CTA instead where its CTAs alone are at least
#: ROW_BLOCK_FULL_GRID (3136 x 256 x 64: 64-row CTAs 3.42 us against 3.96 with 32 rows, 98 CTAs; at 3136 x 64 x 64 and
#: 784 x 512 x 128 they would be 49 and 52, and the 32-row CTAs win, 2.17 / 2.95 us against 3.06 / 3.66).
ROW_BLOCK_TALL: Tuple[Tuple[int, int, int, int], ...] = ((2, 3, 128, 64),)
ROW_BLOCK_FULL_GRID = 96


def row_block_limit(n: int, k: Optional[int]) -> int:
    """The most rows the small-M kernels serve on an N x K layer: MAX_M, or on a layer narrower than
    MIXED_FROM_M_MIN_N (as row blocks) max(ROW_BLOCK_ALWAYS_M, ROW_BLOCK_MAX_MNK // (N * K)); k None: the rows any K
    gets. Host arithmetic."""
    if n >= MIXED_FROM_M_MIN_N:
        return MAX_M
    if k is None or k <= 0 or n <= 0:
        return ROW_BLOCK_ALWAYS_M
    return max(ROW_BLOCK_ALWAYS_M, ROW_BLOCK_MAX_MNK // (n * k))


def row_block_variant(m: int, n: int, k: int) -> int:
    """The mma variant ROW_BLOCK_RULES and ROW_BLOCK_TALL give M rows of an N x K layer."""
    variant = next((v for k_max, nk_max, v in ROW_BLOCK_RULES
                    if (k_max is None or k <= k_max) and (nk_max is None or n * k <= nk_max)), DEFAULT)
    for short, tall, cols, rows in ROW_BLOCK_TALL:
        if variant == short and -(-n // cols) * -(-m // rows) >= ROW_BLOCK_FULL_GRID:
            return tall
    return variant

#: (bits, max_m, n, k, variant): the first row with this bits, max_m >= M, and n / k equal to the call's
#: (None: any) wins; rows of one bits value in increasing max_m, exact shapes before the catch-all rows.
#: M <= 16: from tools/results/h100-2026-11-27/session22/call3/sweep/wo_sweep.md (H100, bf16 x, int4 g128 / int8 per
#: channel, every variant at M = 1 / 4 / 8 / 16, the plan's own split count, every kernel launched as a programmatic
#: dependent with its CTAs spread evenly over the SMs, the default since session 22 (wo_launch.cuh): the int8 rows at
#: M = 16 moved to variant 22 (direct x16 at 512 threads per SM, 104 registers; variant 18 at 768 spills 60 bytes):
#: W8A16 16 x 8192^2 28.36 us (v0) -> 26.94, 16 x 4096 x 14336 27.87 (v18) -> 25.43; the mma / stream kernels, plain
#: launches before, win some rows again (int8 4 x 8192^2 v0, 16 x 28672 x 4096 v10). The None rows are that sweep's
#: most frequent winner per bits and M bucket. M = 1, 8 and 16 again from session29/call3/sweep/wo_sweep.md (the same
#: sweep with variants 23-26, one 32-column block per CTA and K over 8-16 warps): at 8192 columns variant 23 (1 x 16
#: warps) fills the SMs with 256 CTAs and no split-K, int4 1 x 8192^2 15.22 us (v14, 4 splits) -> 13.73, int8 25.32
#: -> 24.12; 1 x 4096 x 14336 takes variant 26 (1 x 8, 4 splits against v14's 8): int4 14.08 -> 13.50. Int4 16 x
#: 28672 x 4096 takes variant 1 since session33/call8/tune.md (31.44 us against variant 4's 32.47 and variant 22's
#: 33.43). M <= 32: session 33's probes of the mma kernel's CTA shapes at 24 and 32 rows (call7/tune.md, each
#: against variant 2, which call4/handoff.md had put ahead of the mixed-input kernel there): int4 variant 27 (mt2
#: 4 x 2 warps, 3 stages) 0.92-0.96x variant 2's time at all three shapes (32 x 8192^2 23.74 us, 32 x 28672 x 4096
#: 38.69, 32 x 4096 x 14336 22.86); int8 variant 28 (mt2 2 x 4, 3 stages) 0.82x / 0.77x at 8192^2 / 4096 x 14336 (31.31
#: / 28.83 us), variant 27 0.83x at 28672 x 4096 (47.78). At other shapes (call10/handoff.md, call11/handoff.md, 17 /
#: 24 / 32 rows): int4 variant 28 ahead of 27 at 4096 x 4096 (10.7-10.9 us against 11.7-12.1), 14336 x 4096 (21.6-22.9
#: against 22.8-23.8) and 1024 x 4096 (7.6-7.9 against 8.4-8.7), behind at 6144 x 4096; int8 variant 27 ahead of 28 at
#: 6144 x 4096 (16.5-17.0 against 17.2-17.8); both 1.2-1.5x faster than variant 2, the choice there before. M <= 48:
#: variant 32 (3 m tiles, 4 x 2 warps) since session 35 (session35/call1-2/handoff.md, 40 / 48 rows at six shapes, two
#: machines): faster than variant 3, the choice before, in 22 of 24 (bits, shape, M) cases of call 2 (int4 0.86-0.91x
#: its time, 4096 x 4096 0.83x; int8 0.79-0.99x, at 28672 x 4096 1.03-1.07x, where the mixed kernel takes these rows).
#: M <= 64: session 7's sweep (tools/results/h100-2026-11-23/session7/call3/wo/wo_sweep.md); at 4096 x 4096 variant 34
#: (4 m tiles, 2 x 4 warps, registers capped for 2 CTAs per SM) since session 35 (int4 15.8-16.0 us against variant 3's
#: 17.3-17.5, int8 16.9-17.1 against 18.5-18.8).
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
    (4, 16, 28672, 4096, 1),
    (4, 16, None, None, 4),
    (4, 32, 1024, 4096, 28),
    (4, 32, 4096, 4096, 28),
    (4, 32, 14336, 4096, 28),
    (4, 32, None, None, 27),
    (4, 48, 4096, 4096, 32),
    (4, 48, None, None, 32),
    (4, 64, 4096, 4096, 34),
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
    (8, 32, 4096, 14336, 28),
    (8, 32, 8192, 8192, 28),
    (8, 32, 6144, 4096, 27),
    (8, 32, 28672, 4096, 27),
    (8, 32, None, None, 28),
    (8, 48, 28672, 4096, 0),
    (8, 48, None, None, 32),
    (8, 64, 4096, 4096, 34),
    (8, 64, 4096, 14336, 0),
    (8, 64, 8192, 8192, 0),
    (8, 64, 28672, 4096, 3),
    (8, 64, None, None, 0),
)



#: The variants compiled in the implicit-GEMM convolution form (runtime/csrc/wo_conv.cuh kWoConvVariants, checked by a
#: CPU test): the row-block CTA shapes above, which serve any number of output pixels.
CONV_VARIANTS = (1, 2, 3, 28)
#: Grid z (row blocks) holds at most this many blocks.
MAX_ROW_BLOCKS = 65535
#: (k_max, mnk_max, variant): the first rule with the packed K <= k_max and M * N * K <= mnk_max (None: any) names a
#: convolution's variant. From tools/results/h200-2026-11-29/session54/call2/handoff (H200, int4 g128 and int8 per
#: channel, every variant timed on ResNet-50's k x k and strided convs at batch 1-16; fitted to those 60 rows): at
#: K = 256 the 32 x 128-column CTAs (2: the 256 -> 512 downsample, 4.29 us at batch 1 against 4.53 / 6.41 for 28 / 1);
#: up to batch-1 work (2^27) 32 x 64 with K over 4 warps (28) up to K = 640 (64 -> 64 3x3 5.19 against 5.40; 512 ->
#: 1024 downsample 4.23 against 5.10) and 16 x 32 with K over 4 warps (1) beyond (the 3x3 convs from 128 channels and
#: the 1024 -> 2048 downsample, 6-15% ahead of 28); with more work 28 (at batch 2-4 it led in 13 of 16 rows, within 9%
#: in the rest; variant 1 was up to 1.4x slower there). The GEMM's row-block rules picked 28 where 1 won at batch 1.
CONV_RULES: Tuple[Tuple[Optional[int], Optional[int], int], ...] = (
    (256, None, 2), (640, None, 28), (None, 1 << 27, 1), (None, None, 28))
#: Multiply-adds (M * N * K, M the output pixels) above which a weight-only conv runs as dequantize + cuDNN instead of
#: the implicit-GEMM kernel (the "dequant_cudnn" route of ops/conv_wo.py): the kernel's mma.sync tiles of 16-64 rows
#: read the weight once per row block and lose to cuDNN's fp16 kernels as the work grows. Same sweep: the best kernel
#: variant against dequantize + cuDNN was 0.44-0.78x its time at batch 1 (<= 0.96 x 2^27), 0.50-0.85x at batch 2
#: (<= 1.9 x 2^27), 0.68-1.14x at batch 4 (3.1-3.8 x 2^27), 0.90-1.31x at batch 8 (6.1-7.7 x 2^27) and 1.12-1.80x at
#: batch 16; at batch 32 (call 1) the kernels took 1.6-4.9x cuDNN's time. With the bound 2^29 and CONV_RULES every
#: measured call takes at most 1.22x the time of the fastest measured form (1.00-1.14x but for the 512 -> 1024
#: downsample at batch 4: variant 28 10.75 us, variant 2 9.89, dequantize + cuDNN 8.83).
CONV_IGEMM_MAX_MNK = 1 << 29


def conv_variant(m: int, n: int, k: int) -> int:
    """The convolution-form variant for M output pixels of a conv with N output channels and a packed K
    (CONV_RULES). Host arithmetic."""
    mnk = m * n * k
    return next(v for k_max, mnk_max, v in CONV_RULES
                if (k_max is None or k <= k_max) and (mnk_max is None or mnk <= mnk_max))


def conv_uses_kernel(m: int, n: int, k: int) -> bool:
    """Whether a weight-only conv of this work takes the implicit-GEMM kernel (CONV_IGEMM_MAX_MNK) rather than
    dequantize + cuDNN. Host arithmetic."""
    return m * n * k <= CONV_IGEMM_MAX_MNK


def conv_row_limit(variant: int) -> int:
    """The most output pixels the convolution form of `variant` serves (MAX_ROW_BLOCKS row blocks, and the
    extension's 2^20 rows)."""
    return min(MAX_ROW_BLOCKS * VARIANTS[variant][1], 1 << 20)


def variant_rows(variant: int, m: int = 1) -> int:
    """M capacity of `variant` (0: MAX_M, the default kernel serves every M <= 64)."""
    return MAX_M if variant == DEFAULT else VARIANTS[variant][1]


def select_variant(m: int, n: int, k: int, bits: int, table=None) -> int:
    """The variant id for an (m, n, k) call on a `bits`-bit weight: on a narrow layer from ROW_BLOCKS_FROM_M rows
    row_block_variant (any M up to row_block_limit), else the table's first matching row whose variant serves m, else 0.
    Pure host arithmetic on Python ints (no device query, no sync)."""
    if m >= ROW_BLOCKS_FROM_M and n < MIXED_FROM_M_MIN_N:
        return row_block_variant(m, n, k)
    for row_bits, max_m, rn, rk, variant in (TABLE if table is None else table):
        if row_bits == bits and m <= max_m and (rn is None or rn == n) and (rk is None or rk == k) \
                and m <= variant_rows(variant):
            return variant
    return DEFAULT


@functools.lru_cache(maxsize=4096)
def select_variant_cached(m: int, n: int, k: int, bits: int) -> int:
    """select_variant on the module's TABLE, memoized (the eager layer path asks it once per call)."""
    return select_variant(m, n, k, bits)


def mixed_from(bits: int, n: int, k: Optional[int]) -> int:
    """Rows from which a `bits`-bit N x K layer holding the mixed-input copy calls its kernel (MIXED_FROM; for layers
    narrower than MIXED_FROM_M_MIN_N, the first row beyond the row blocks' row_block_limit). Host arithmetic."""
    if n < MIXED_FROM_M_MIN_N:
        return row_block_limit(n, k) + 1
    for row_bits, rn, rk, from_m in MIXED_FROM:
        if row_bits == bits and (rn is None or rn == n) and (rk is None or rk == k):
            return from_m
    return MAX_M + 1


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
