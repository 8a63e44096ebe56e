"""Which blockwise kernel (kernels/blockwise.py) serves which call, as data: the selection rows of the fp8 and int8
families, the activation-scale layout rules, the rows a layer pads to, and the committed kernel set."""
from __future__ import annotations

from typing import List, Optional, Tuple

from .blockwise import MAINLOOPS, OUT_DTYPES, SFA_MAJORS, BlockwiseConfig
from .config import ACTIVATIONS
from .heuristics import whole_tile_rows
from .tile_rules import OpPadRule, column_units

#: (largest M, (tile, cluster, schedule, scheduler, mainloop)), first match wins.
#: - small M: 64 x 128 pingpong (session6/call5: at 16x7168x2048 10.75 us where a 128 x 128 stream-K tile took 15.6;
#:   M <= 16 now goes to the decode GEMV unless CUTLASS_GEMM_GEMV=0);
#: - mid M: 128 x 128 cooperative, no cluster; both with the overlapped-promotion mainloop;
#: - large M: 256 x 128 cooperative with a 1 x 2 cluster (the per-token fp8 kernel's tile) and the per-atom
#:   promotion: with CUTLASS's mainloop that tile holds two 128-register accumulators per thread, ptxas spills
#:   592 bytes and it ran 2.5-3.3x slower (session24/call2); where it makes too few tiles for the GPU
#:   (WIDE_MIN_TILES, below) the mid row serves instead.
#: Every derived mainloop gives CUTLASS's bits (kernels/cxx/blockwise_overlap.hpp).
#: Measured on the H100, bf16 out, one process each (tools/results/h100-2026-11-27/session24/call1-2 and
#: session25/call1-2, `tools/benchmark.py blockwise --choices ...`), us:
#:   64 / 128 x 7168 x 2048, 64x128 pingpong, CUTLASS -> overlapped: 10.73 -> 10.40 / 10.74 -> 10.41 (128x128 c1x1
#:   11.51 / 11.33);
#:   256 x 7168 x 2048: 64x128 pingpong 14.44 -> 13.06, 128x128 c1x1 11.77 -> 11.52 (scale_a "mn");
#:   512 / 1024 x 7168 x 2048, 128x128 c1x1 "mn": 18.58 -> 18.07 / 33.45 -> 32.46 (c1x2 19.85 / 36.03); at 1024 the
#:   256x128 per-atom tile ties (32.0-32.3 against 32.04, session25/call1);
#:   512 x 8192^2, c1x1 "mn": 54.44 overlapped (c1x2 60.89 -> 60.10);
#:   4096 x 7168 x 2048, "mn": 128x128 c1x2 overlapped 106.7-106.8, 256x128 c1x2 per-atom 101.5-102.0 (c2x1 102.9-103.1,
#:   c1x1 103.7);
#:   2048 x 8192^2: 128x128 c1x2 overlapped 212.5-212.7, 256x128 c1x2 per-atom 208.2-215.2 (c2x1 209.7-210.9);
#:   8192^3: 128x128 c1x2 overlapped 1010-1041, 256x128 c1x2 per-atom 915.7-999.4 (c2x1 929.9-972.7);
#:   the per-atom loop with its early barrier poll, timed in alternation with the per-token kernel (session25/call12):
#:   98.44 / 201.61 / 890.9 at the last three (0.94x / 0.92x / 0.94x of per-token; 1x2 ahead of 2x1, 1x1, 2x2: call 5).
SELECTION: Tuple[Tuple[Optional[int], tuple], ...] = (
    (128, ((64, 128, 128), (1, 1, 1), "pingpong", "persistent", "overlap")),
    (1024, ((128, 128, 128), (1, 1, 1), "cooperative", "persistent", "overlap")),
    (None, ((256, 128, 128), (1, 2, 1), "cooperative", "persistent", "atom")),
)


#: From this M on, the layers ask the per-group quantization for column-major activation scales ("mn":
#: TMA-loaded) instead of row-major ("k"): session7/call1/blockwise.md, same kernel tile, M = 2048 x 8192^2
#: 247.5 -> 221.3 us, 8192^3 1161 -> 1065 us, 4096x7168x2048 113.0 -> 111.2 us; at M <= 256 no gain. The GEMM
#: needs M % 4 == 0 for it (the TMA stride), so other M keep "k".
SFA_MN_MIN_M = 512


#: From this K on (and M >= SFA_MN_MIN_M, M % 4 == 0) the op copies a row-major scale_a to column-major itself: the
#: TMA-loaded layout is ~10% faster at K = 8192 (session25/call12, "k" -> "mn": 2048 x 8192^2 221.6 -> 201.6 us, 8192^3
#: 992.1 -> 890.9) while the copy of M * K / 128 floats costs a few us; at K = 2048 the gain is 1-2 us (4096 x 7168 x
#: 2048 100.1 -> 98.4, 1024 x 7168 x 2048 33.4 -> 32.3), about what the copy costs.
SFA_RELAYOUT_MIN_K = 4096


#: The int8 family's SFA_MN_MIN_M: the rows from which its layers ask the quantizer for column-major activation scales
#: (the op's own copy of a row-major one is relayout_sfa's decision). Measured (H200, session 48,
#: tools/results/h200-2026-11-29/session48/call1-2, one process per layout, us, "mn" / "k"): 128 x 128 c2x1 tile
#: 84.8 / 92.3 (192 x 28672 x 4096), 85.3 / 92.4 (256 x 28672 x 4096), 44.1 / 48.1 (256 x 14336 x 4096), 85.0 / 92.1
#: (320 x 14336 x 4096), 81.6 / 117.2 (320 x 8192^2), 81.7 / 89.4 (256 x 16384 x 8192); the 256 x 128 per-atom tile
#: 78.9 / 89.7, 79.4 / 92.6, 41.4 / 48.3, 78.0 / 92.9, 75.5 / 91.8, 76.6 / 89.9; on the H100 (session28/call1) "mn"
#: was ahead for every cooperative tile from 256 rows too. The 64 x 128 pingpong tile (H200, session 49,
#: tools/results/h200-2026-11-29/session49/call1, quantizer + GEMM from CUDA graphs, "k" / "mn" time): at 4096^2
#: 1.017 / 1.033 / 1.052 / 1.073 / 1.061 / 1.060 at 20 / 32 / 48 / 64 / 96 / 128 rows, at 8192^2 0.995 / 1.006 / 1.024 /
#: 1.044 / 1.066 / 1.054, at 14336 x 4096 and 28672 x 4096 within 1% to 64 rows and 1.04-1.07 at 96 / 128, at
#: 7168 x 2048 (16 K blocks) 0.989-1.006: "mn" from 48 rows.
SFA_MN_MIN_M_S8 = 48


#: From this M on (below SFA_MN_MIN_M: only where the last 128-row tile holds at least SFA_MN_LAYER_MIN_TAIL rows, or
#: none is partial) the fp8 layers ask the per-group quantizer for column-major activation scales; the op's own copy of
#: a row-major one keeps SFA_MN_MIN_M and SFA_RELAYOUT_MIN_K. Measured (H200, tools/results/h200-2026-11-29/session49):
#: - call 1 (probe/sfa_rows.py, quantizer + GEMM from CUDA graphs, "k" / "mn" time, the 128 x 128 tile, at 4096^2,
#:   7168 x 2048, 8192^2, 14336 x 4096, 28672 x 4096): 1.12-1.33 at 256 rows, 1.19-1.22 at 384; 0.90-1.03 at 132 and
#:   0.95-1.17 at 192 (slower at four of five shapes);
#: - call 5 (probe/fp8_layer_rule.py, the eager layer from CUDA graphs, "mn" from 512 -> "mn" from 256 rows, same four
#:   shapes without 14336 x 4096): 1.12-1.33x at 256, 1.19-1.23x at 384, 1.08-1.18x at 500 (last tile 116 rows), but
#:   0.94-1.01x at 320 and 0.88-0.96x at 448 (last tile 64 rows).
#: A partial last tile costs the column-major layout more: its scale columns are loaded with TMA, whose out-of-bounds
#: rows are slow (docs/performance.md, "Partial M tiles"); the row-major gathers are predicated instead.
SFA_MN_MIN_M_LAYER = 256
SFA_MN_LAYER_MIN_TAIL = 96


def _sfa_mn_min_m(ab: str) -> int:
    return SFA_MN_MIN_M_S8 if ab == "s8" else SFA_MN_MIN_M


def relayout_sfa(m: int, k: int, ab: str = "e4m3", n: int = 0) -> bool:
    """Whether the op turns a row-major scale_a of an (m, k) call of family `ab` (`n` output columns, 0: not known)
    into the column-major layout before the GEMM. int8 below SFA_MN_MIN_M: only where the 256-row tile serves; at
    384 x 4096^2 (the 128 x 128 tile) the copy cost more than the layout saved (H200, session48/call3: 25.7 us
    row-major, 26.4 with the copy)."""
    if m < _sfa_mn_min_m(ab) or m % 4 or k < SFA_RELAYOUT_MIN_K:
        return False
    return m >= SFA_MN_MIN_M or _selected_row(m, ab, n)[0][0] == 256  # (per call: no config object built)


def layer_sfa_major(m: int, ab: str = "e4m3") -> str:
    """The activation-scale layout a layer of family `ab` requests from quantize_per_group for `m` rows."""
    if m % 4:
        return "k"  # the TMA-loaded layout needs 16-byte scale columns
    if ab == "s8":
        return "mn" if m >= SFA_MN_MIN_M_S8 else "k"
    if m >= SFA_MN_MIN_M:
        return "mn"
    tail = m % 128
    return "mn" if m >= SFA_MN_MIN_M_LAYER and (tail == 0 or tail >= SFA_MN_LAYER_MIN_TAIL) else "k"


#: The rows (least, most) whose fp8 layer call quantizes into whole M tiles (`padded_rows`): a partial last tile costs
#: the load-bound fp8 kernels up to 1.8x (H200, session 49, tools/results/h200-2026-11-29/session49/call3, the 128 x 128
#: tile at 132 x 8192^2 46.3 us, the same kernel on operands padded to 256 rows 26.2; 132 x 28672 x 4096 85.1 -> 51.2).
#: The int8 kernels are compute-bound and lose almost nothing there (42.9 / 42.7 us at 132 x 8192^2): not padded.
#: The eager Fp8BlockLinear from CUDA graphs, unpadded -> padded (session 50, tools/results/h200-2026-11-29/session50/
#: call2, probe/pad_block.py, bits equal): 1.08-1.72x at 100..700 rows at 8192^2, 28672 x 4096, 4096^2 and 7168 x 2048
#: (132 x 8192^2 50.8 -> 29.6 us, 520 x 8192^2 112.3 -> 76.1), 1.00-1.08x at 1000. At 17..48 rows (the 64-row tile)
#: 1.01-1.25x where N >= 7168 (17 x 8192^2 29.3 -> 23.4) but 0.88-0.96x at 4096^2 (17 rows 10.9 -> 12.4: 32 CTAs,
#: each then promoting 64 rows of scales): up to 64 rows only from PAD_SMALL_MIN_N columns.
PAD_ROWS_E4M3 = (17, 1023)
PAD_SMALL_MAX_M = 64
PAD_SMALL_MIN_N = 7168


def padded_rows(m: int, ab: str = "e4m3", n: int = 0) -> int:
    """The M a layer's blockwise GEMM of `m` rows (`n` output columns) runs on: inside PAD_ROWS_E4M3 (fp8; up to
    PAD_SMALL_MAX_M rows only where n >= PAD_SMALL_MIN_N), m rounded up to the M tile times the cluster's M of the
    kernel the rounded M selects; else m. The layer quantizes into that many rows and keeps the first m rows of the
    output; its scale layout is then layer_sfa_major's for the rounded M (whole tiles)."""
    if ab != "e4m3" or not PAD_ROWS_E4M3[0] <= m <= PAD_ROWS_E4M3[1]:
        return m
    if m <= PAD_SMALL_MAX_M and n < PAD_SMALL_MIN_N:
        return m

    def unit(rows: int) -> int:
        tile, cluster = _selected_row(rows, ab, n)[:2]
        return tile[0] * cluster[0]
    return whole_tile_rows(m, unit)


#: When `scaled_mm_blockwise` copies a caller's rows into padded_rows' whole tiles (heuristics.OP_PAD's rule for this
#: family). Session 62 (tools/results/h200-2026-11-30/session62, the blockwise arm of the scaled_mm sweeps): the
#: unpadded kernel's last M unit >= 3/4 empty and N * K > 2^24: 48 of call 2's 120 calls padded, 0.91-1.36x; out of
#: sample 56 of 80, 1.075x on geometric mean, 0.91-1.41x.
#: Session 63 fitted this family again with the pad launched early (tools/results/h200-2026-11-30/session63/call2,
#: probe/fit.py and probe/fit_fetch.py --blockwise; 142 padded-row points of set A): the best rule of either form (a
#: 0.6 empty share; or that and an out-of-bounds fetch >= 20M elements) was within 0.002 of this one on geometric mean
#: (1.054 / 1.052, oracle 1.061) and no better out of sample (0.999 / 1.000 over set B's 88): kept.
OP_PAD_E4M3 = OpPadRule(0.75, 1 << 24)


def op_padded_rows(m: int, ab: str = "e4m3", n: int = 0, k: int = 0) -> int:
    """The rows `scaled_mm_blockwise` runs a caller's M x N x K call on: padded_rows where OP_PAD_E4M3 says the copy
    pays, else M."""
    rows = padded_rows(m, ab, n)
    if rows == m:
        return m
    tile, cluster = _selected_row(m, ab, n)[:2]
    return rows if OP_PAD_E4M3.pads(m, tile[0] * cluster[0], rows, n, k, column_units(tile, cluster, n)) else m


#: The int8 kernels (ab "s8": per-token and per-channel scales per 128-wide K block, kernels/cxx/blockwise_int8.hpp),
#: as SELECTION: 64 x 128 pingpong to 128 rows with the overlapped int8 promotion, and from 129 rows the 256 x 128
#: cooperative tile (1 x 2 cluster, the per-token int8 kernel's) with the per-atom one where its tiles fill the GPU
#: (WIDE_MIN_TILES), the 128 x 128 cooperative tile with the overlapped promotion elsewhere.
#: Measured on the H100 (session28/call1, `tools/bench_blockint8.py --choices`, bf16 out, us; scale_a "k" / "mn"):
#:   64 x 8192^2: 64x128 pingpong 39.7 / 38.8, 128x128 c1x1 54.1 / 52.7, c2x1 52.0 / 51.0 (extension kernel 46.5);
#:   256 x 8192^2: pingpong 71.3 / 72.0, 128x128 c1x1 58.6 / 54.3, c1x2 57.2 / 53.6, c2x1 56.4 / 51.7;
#:   1024 x 8192^2: c1x1 211.5 / 197.6, c1x2 201.2 / 193.9, c2x1 197.8 / 182.8;
#:   2048 x 8192^2: c1x1 418.3 / 387.6, c1x2 405.0 / 374.9, c2x1 392.0 / 360.1 (pingpong 522);
#:   4096 x 8192^2: c1x1 838.6 / 773.7, c1x2 816.4 / 780.2, c2x1 816.1 / 829.5;
#:   8192^3: c1x1 1825 / 1678, c1x2 1732 / 1638, c2x1 1769 / 1634;
#:   4096 x 7168 x 2048: c2x1 175.4 / 172.0 (c1x2 177.2 / 174.6); 2048 x 28672 x 4096: c2x1 715.7 / 653.6.
#: "mn" (coalesced gathers of the per-token scales) is ahead everywhere above 64 rows: the op turns a row-major scale_a
#: column-major where the fp8 op does (relayout_sfa).
#: Again with the I2FP promotion (generator 7; session29/call1, "mn"): 64 x 8192^2 pingpong 31.4, 128x128 c1x1 / c1x2 /
#: c2x1 44.4 / 44.8 / 45.4; 256: 50.1 / 44.1 / 43.6 / 44.3; 1024: 184.7 / 162.5 / 159.6 / 162.0; 2048: 375.0 / 327.4 /
#: 318.6 / 326.9; 4096 x 7168 x 2048 ("k", the op's layout at K 2048): 166.4 / 147.3 / 149.5 / 151.1. The 128 x 128 tiles
#: within 3% of each other, single runs: the rows stand.
#: The per-atom 256 x 128 tiles (generator 9; H200, tools/results/h200-2026-11-29/session47/call1, "mn", every candidate
#: in alternating batches with the per-token int8 GEMM, bits equal to the 128 x 128 kernel's), 128x128 c2x1 -> 256x128
#: c1x2 per-atom (c2x1 / c1x1): 256 x 8192^2 43.3 -> 76.0 (64 tiles); 512: 81.8 -> 75.7 (77.2 / 78.5); 1024: 159.4 ->
#: 146.7; 2048: 319.2 -> 293.5 (299.5 / 307.5); 4096: 692.2 -> 618.4; 8192^3: 1480.9 -> 1266.1 (1279.3 / 1382.2);
#: 4096 x 7168 x 2048: 152.0 -> 141.0; 2048 x 28672 x 4096: 588.4 -> 536.6 (7-15% less time from 512 rows); 384 x
#: 8192^2: 82.2 -> 76.7 (call 2). At 129..383 rows (H200, session 48, tools/results/h200-2026-11-29/session48/call1-2,
#: where the 256-row tile makes more than 66 tiles; "mn" then "k"): 192 x 28672 x 4096 84.8 -> 78.9, 92.3 -> 89.7;
#: 256 x 28672 x 4096 85.3 -> 79.4, 92.4 -> 92.6; 256 x 14336 x 4096 44.1 -> 41.4, 48.1 -> 48.3; 320 x 14336 x 4096
#: 85.0 -> 78.0, 92.1 -> 92.9; 320 x 8192^2 81.6 -> 75.5, 117.2 -> 91.8; 256 x 16384 x 8192 81.7 -> 76.6, 89.4 -> 89.9:
#: 6-9% less time with "mn" (SFA_MN_MIN_M_S8), within 1% with "k" but at 192 rows and 320 x 8192^2, so the
#: per-atom tile from 129 rows. The 128 x 128 row's limit is the pingpong row's: M alone never reaches it, it serves
#: where the 256-row tile would make too few tiles (WIDE_MIN_TILES).
SELECTION_S8: Tuple[Tuple[Optional[int], tuple], ...] = (
    (128, ((64, 128, 128), (1, 1, 1), "pingpong", "persistent", "overlap")),
    (128, ((128, 128, 128), (2, 1, 1), "cooperative", "persistent", "overlap")),
    (None, ((256, 128, 128), (1, 2, 1), "cooperative", "persistent", "atom")),
)
#: A 256-row tile (both families) serves a call only where it makes at least this many tiles (ceil(M / 256) *
#: ceil(N / 128)); below, the row before it does. The 128-row tile makes twice as many: up to 132 (the H100's and the
#: H200's SMs) they run in one wave, in the time of one 256-row tile at most; from 134 they take two. Measured (session
#: 47, H200, tools/results/h200-2026-11-29/session47/call1-3, 256x128 per-atom against the row before, us): int8 at 64
#: tiles 76.0 / 43.3 (256 x 8192^2), 39.7 / 23.7 (512 x 4096^2), 74.5 / 42.8 (1024 x 2048 x 8192); at 96 tiles 40.3 /
#: 43.8 (768 x 4096^2), 112: 40.5 / 43.6 (4096 x 896 x 4096), 128: 75.7-76.7 / 81.8-82.2 (384 and 512 x 8192^2),
#: 40.5-40.8 / 44.0-44.1 (1024 x 4096^2, 2048 x 2048 x 4096, 4096 x 1024 x 4096); fp8 at 64 tiles 24.6 / 14.3 (2048 x
#: 1024 x 4096), at 96 and 128 within 1% (1536 x 2048 x 7168; 2048 x 2048 x 4096, 4096 x 1024 x 4096).
WIDE_MIN_TILES = 67
#: From this M on the per-block int8 op (block 128, SM90) runs the kernels of SELECTION_S8 instead of the extension's
#: mma.sync kernel (ops/blockwise_int8.py sm90_route); below it the decode GEMV (M <= 16) or the extension's kernel.
S8_MIN_M = 17
#: The alternatives the benchmark times against SELECTION_S8.
CANDIDATES_S8 = (
    ((128, 128, 128), (1, 1, 1), "cooperative", "persistent", "overlap"),
    ((128, 128, 128), (1, 2, 1), "cooperative", "persistent", "overlap"),
    ((256, 128, 128), (2, 1, 1), "cooperative", "persistent", "atom"),
)


def select_config(out_dtype: str, m: int, activation: str = "none", sfa_major: str = "k",
                  ab: str = "e4m3", n: int = 0) -> BlockwiseConfig:
    """The kernel a call with `m` rows (and `n` output columns; 0: not known, the M rows alone decide) takes
    (SELECTION, or SELECTION_S8 for int8 operands)."""
    return _row_config(_selected_row(m, ab, n), ab, out_dtype, activation, sfa_major)


def _selected_row(m: int, ab: str, n: int) -> tuple:
    rows = SELECTION_S8 if ab == "s8" else SELECTION
    for i, (limit, row) in enumerate(rows):
        if limit is None or m <= limit:
            tile = row[0]
            if n > 0 and i > 0 and tile[0] == 256 and -(-m // tile[0]) * -(-n // tile[1]) < WIDE_MIN_TILES:
                row = rows[i - 1][1]
            return row
    raise AssertionError("SELECTION ends with a catch-all row")


def _row_config(row: tuple, ab: str, out_dtype: str, activation: str = "none", sfa_major: str = "k") -> BlockwiseConfig:
    tile, cluster, schedule, scheduler, mainloop = row
    return BlockwiseConfig(ab=ab, out_dtype=out_dtype, activation=activation, sfa_major=sfa_major, tile=tile,
                           cluster=cluster, schedule=schedule, scheduler=scheduler, mainloop=mainloop)


def s8_candidate_configs(out_dtype: str = "bf16", sfa_major: str = "k") -> List[BlockwiseConfig]:
    """The int8 kernels of SELECTION_S8 and CANDIDATES_S8."""
    rows = {row for _, row in SELECTION_S8} | set(CANDIDATES_S8)
    return sorted((_row_config(row, "s8", out_dtype, sfa_major=sfa_major) for row in rows), key=lambda c: c.name)


def _serves(cfg: BlockwiseConfig, mainloop: str) -> bool:
    try:
        cfg.replace(mainloop=mainloop)
    except ValueError:
        return False
    return True


def candidate_configs(out_dtype: str = "bf16", activation: str = "none", sfa_major: str = "k") -> List[BlockwiseConfig]:
    """Every tile of SELECTION plus the alternatives the benchmark times against them (per M)."""
    rows = [row for _, row in SELECTION] + [
        ((128, 128, 128), (1, 1, 1), "cooperative", "streamk", "cutlass"),
        ((128, 128, 128), (1, 2, 1), "cooperative", "persistent", "overlap"),
    ]
    out = {BlockwiseConfig(out_dtype=out_dtype, activation=activation, sfa_major=sfa_major, tile=t, cluster=c,
                           schedule=s, scheduler=sc, mainloop=ml) for t, c, s, sc, ml in rows}
    # each persistent tile with every mainloop that serves it (stream-K is left to CUTLASS's), but CUTLASS's
    # where a warpgroup holds two atoms: it spills (SELECTION's note)
    out |= {cfg.replace(mainloop=ml) for cfg in out if cfg.scheduler == "persistent" for ml in MAINLOOPS
            if _serves(cfg, ml) and not (ml == "cutlass" and _serves(cfg, "atom"))}
    return sorted(out, key=lambda c: c.name)


def default_configs() -> List[BlockwiseConfig]:
    """The committed set (generated/sm90_blockwise): the SELECTION tiles and the benchmark's alternatives
    for bf16 and fp16 output without activation, the "mn" scale_a variants of the rows the layers ask it from
    (layer_sfa_major: M >= SFA_MN_MIN_M_LAYER), and every activation at each SELECTION row (bf16; "mn" too where it
    applies)."""
    cfgs = set(candidate_configs("bf16")) | set(candidate_configs("f16"))
    rows = [limit for limit, _ in SELECTION[:-1]] + [1 << 20]  # one M per row
    mn_rows = [m for m in rows if m >= SFA_MN_MIN_M_LAYER]
    for out in ("bf16", "f16"):
        cfgs.update(select_config(out, m, sfa_major="mn") for m in mn_rows)
    for act in ACTIVATIONS[1:]:
        cfgs.update(select_config("bf16", m, act) for m in rows)
        cfgs.update(select_config("bf16", m, act, sfa_major="mn") for m in mn_rows)
    # int8: each SELECTION_S8 row in both scale_a layouts (the op serves either), fp16 and bf16 out, and every
    # activation with bf16
    for major in SFA_MAJORS:
        for _, row in SELECTION_S8:
            cfgs.update(_row_config(row, "s8", out, sfa_major=major) for out in OUT_DTYPES)
            cfgs.update(_row_config(row, "s8", "bf16", act, major) for act in ACTIVATIONS[1:])
    return sorted(cfgs, key=lambda c: c.name)
