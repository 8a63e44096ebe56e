"""Which tile serves which problem, per SM, as plain data; and the default kernel set derived from it.

`SELECTION[sm]` lists (max_m, TileChoice) rows in increasing max_m; the first row whose max_m >= M
wins (None = no bound). The default kernel set is exactly the tiles the table uses, for every
variant and output dtype, so a test can check that every selectable kernel is generated.

SM90 rows come from `tools/benchmark.py tiles` on an H100 (2026-11-22,
tools/results/h100-2026-11-22/run8/tiles.csv): scaled_bias, bf16 out, N = K = 8192 unless noted,
microseconds per GEMM for tiles 64x64 c1x1 / 64x128 c2x1 / 128x128 c1x2:  M=1: 28.9/33.4/41.0;
M=16: 28.9/30.2/33.2;  M=64: 29.0/30.4/33.5;  M=128: 30.2/29.7/32.4;  M=256: 41.6/36.6/35.1;
M=512: 112/68/58;  M=2048: 483/280/205;  M=8192: 2226/1216/1038;  4096^3: 265/139/108;
16x14336x4096: 26.6/26.8/28.4.
Above M = 256 the rows of `tools/benchmark.py tiles` (2026-11-23, session6/call2/tiles.md: ten tiles, int8 and
e4m3) put 256x128x128 cooperative, cluster 1x2, within 3% of the best tile at every shape measured, for both
input types (int8 / e4m3 us: 512x8192x8192 47.5 / 50.3; 2048 173.0 / 186.6; 8192 796.5 / 831.9; 4096^3
92.5 / 98.5; 4096x14336x4096 325.0 / 356.1; 4096x4096x14336 302.1 / 334.0), where the former 128x128x128
pingpong c1x2 took 59.9-947 us (up to 1.28x slower); at M = 256 and below its 64 CTAs per 8192 columns leave
half the SMs idle, so 64x128 c2x1 serves M <= 256 (M = 256: 36.6 us against 35.1 for 128x128 c1x2).
Some SM90 tiles do not compile with the EVT epilogue (FINDINGS.md: cooperative 64-row CTAs,
32-row pingpong CTAs), so none is used. SM80 rows are CUTLASS's usual choices, not yet measured.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

from .config import OUTPUT_DTYPES, VARIANTS, KernelConfig
from .gemv import MAX_M as GEMV_MAX_M, VARIANTS as GEMV_VARIANTS
from .tile_rules import (OpPadRule, PartialRule, TileChoice, WaveRule, column_units, ctas, m_unit, partial_choice,
                         wave_choice)


#: The SM90 tiles the table and its rules name (NARROW, WAVES, PARTIAL) more than once.
_T64 = TileChoice((64, 128, 128), (2, 1, 1), "pingpong")
_T128 = TileChoice((128, 128, 128), (1, 1, 1), "pingpong")
_T256 = TileChoice((256, 128, 128), (1, 2, 1), "cooperative")


#: SM90 since session 50 (H200, one process each, `tools/benchmark.py tiles`, weights rotated beyond L2; int8 / e4m3
#: alike, us; tools/results/h200-2026-11-29/session50/call5-6): the 128 x 128 pingpong tile without a cluster is ahead
#: of the 256 x 128 one from 257 to 1024 rows, where the layers' rows are whole tiles (padded_rows) and the 256-row
#: tile's few large CTAs quantize into waves: 384 x 8192^2 43.4 / 56.9 (256 x 128), 640 x 8192^2 63.7 / 92.0, 768 x
#: 8192^2 66.3 / 83.8, 384 x 28672 x 4096 68.0 / 104.4, 768 x 28672 x 4096 119.1 / 135.1, 768 x 14336 x 4096 64.0 /
#: 67.2, 384 x 4096 x 14336 37.3 / 68.5, 640 / 768 x 7168 x 2048 18.5 / 27.5 and 18.7 / 26.3, 1024 x 7168 x 2048 23.4 /
#: 26.3; a tie at 512 and 1024 x 8192^2 (45.2 / 44.6, 85.7 / 84.7). Above 1024 rows the session-6 rows stand.
#: Those runs timed the 256-row tile on partial tiles; on whole tiles it is ahead again from K = 8192 where its waves
#: are full: WAVES below (session 51).
SELECTION: Dict[int, List[Tuple[Optional[int], TileChoice]]] = {
    90: [
        (64, TileChoice((64, 64, 128), (1, 1, 1), "pingpong")),
        (256, _T64),
        (1024, _T128),
        (None, _T256),
    ],
    80: [
        (32, TileChoice((32, 128, 128), schedule="multistage", stages=4)),
        (256, TileChoice((128, 128, 64), schedule="multistage", stages=5)),
        (None, TileChoice((256, 128, 64), schedule="multistage", stages=3)),
    ],
    # SM89 (Ada: L4, L40S, RTX 40xx) fp8 e4m3, CUTLASS 2 multistage kernels over mma.sync m16n8k32 e4m3: tiles from
    # cutlass_library's GenerateSM89_TensorOp_16832_fp8 list, stages that fit the 99 KB of shared memory a block may
    # use there, the SM80 table's shape (small-M tile, 128 x 128 to 256 rows, 256 x 128 above). Not measured on an SM89
    # GPU (none lent): what this library has run them on is an H100-class GPU from sm_90 machine code, for correctness.
    # int8 on SM89 runs the SM80 family (family_sm).
    89: [
        (32, TileChoice((32, 128, 128), schedule="multistage", stages=4)),
        (256, TileChoice((128, 128, 64), schedule="multistage", stages=4)),
        (None, TileChoice((256, 128, 64), schedule="multistage", stages=3)),
    ],
}

#: SMs with a default kernel set.
DEFAULT_SMS = tuple(sorted(SELECTION))

#: Per device kernel SM (ops.gemm.kernel_sm): input dtype -> the SM of the kernel family that serves it, where that
#: is another family's (SM89 runs the SM80 int8 kernels; its own family is fp8 only).
FAMILY_SM: Dict[int, Dict[str, int]] = {89: {"int8": 80}}


def family_sm(sm: int, a_dtype: str) -> int:
    """The kernel family (its SM) that serves `a_dtype` inputs on a device whose kernel SM is `sm`."""
    return FAMILY_SM.get(sm, {}).get(a_dtype, sm)


#: Per SM: (least CTAs, tile). When the last (largest) row's tile would cut a problem into fewer CTAs than
#: this, that tile takes it instead: session6/call3 measured 512x4096x14336 at 71.5 us on 256x128 (64
#: CTAs for 132 SMs) where 128x128 pingpong c1x2 took 50.6 (run4), while 512x8192x8192 (128 CTAs) ran
#: fastest on 256x128 (47.5 us against 59.9). The 128x128 tile without a cluster takes 5-21% less time than
#: with the 1x2 cluster at six of seven narrow shapes, int8 and e4m3 alike (a tie, < 1%, at 512x2048x8192), and
#: is as fast as 2x1 or the cooperative 1x1
#: (tools/results/h100-2026-11-26/session11/call4/tiles/tiles.md, one process; int8 / e4m3 us, 1x2 -> 1x1:
#: 512x4096x4096 18.6 -> 15.7 / 18.8 -> 16.2, 512x4096x14336 50.7 -> 41.5 / 50.8 -> 43.1, 1024x2048x8192
#: 31.2 -> 24.8 / 31.4 -> 26.1, 768x4096x4096 29.3 -> 25.1 / 29.2 -> 25.6). At 128 CTAs it ties the 256x128
#: tile (512x8192x8192 47.2 / 47.1 int8) or leads by 4% (1024x4096x4096 25.1 / 26.3): the bound stays 100.
NARROW: Dict[int, Tuple[int, TileChoice]] = {
    90: (100, _T128),
}


#: SM90 at 129..1024 rows, between two tiles whose times quantize into waves of CTAs: a WaveRule each (H200, the
#: padded W8A8 layers from CUDA graphs with each tile forced at whole tiles, int8 and e4m3,
#: tools/results/h200-2026-11-29/session51/call2/out/band_tiles.log, us small / large tile):
#: - 129..256 rows, 64 x 128 c2x1 against 128 x 128: the 64-row tile costs ~1.15x per unit of work (8192^2 35.6 /
#:   33.5, 7168 x 2048 12.7 / 11.4, both one wave) but wins where the 128-row tile's last wave is nearly empty:
#:   10240 x 8192 48.0 / 55.0 (160 CTAs), 4096 x 14336 32.4 / 51.3 (64), 12288 x 4096 26.4 / 27.6 (192). This rule
#:   replaced session 50's FILL (">= 96 CTAs"), which chose the 128-row tile at 10240 x 8192 and 12288 x 4096.
#: - 257..1024 rows from K = 8192, 128 x 128 against 256 x 128 c1x2: at K <= 4096 the 128-row tile serves every
#:   measured shape (1.0-1.41x, ties at 1024 rows), but from K = 8192 it costs ~1.2x per unit of work: 1024 x 8192^2
#:   122.4 / 91.3, 512 x 16384 x 8192 111.5 / 91.3, 768 x 10240 x 8192 116.0 / 89.8, while 384 x 10240 x 8192 53.0 /
#:   87.3 and 640 x 8192 x 28672 272.4 / 305.0 still favour it. With factor 1.2 the rule picks the faster tile at every
#:   one of the 40 int8 points with K >= 8192 and is within 7% at the e4m3 ones (512 x 28672 x 8192: 188.9 / 202.9).
#:   K between 4096 and 8192 is not measured: the 128-row tile keeps it. K unknown (0): no rule with min_k > 0.
#: WAVE_SMS is the SM count the arithmetic assumes (H100 SXM and H200: 132).
WAVE_SMS: Dict[int, int] = {90: 132}


WAVES: Dict[int, List[WaveRule]] = {90: [WaveRule(129, 256, 0, _T64, _T128, 1.15),
                                         WaveRule(257, 1024, 8192, _T128, _T256, 1.2)]}


#: SM90 (H200, session 61, tools/results/h200-2026-11-29/session61, probe/oob_rows.py: every tile launched on unpadded
#: operands, int8 and e4m3): a TMA load fetches a partial tile's out-of-bounds rows through L2 like in-bounds ones (the
#: same 402.7 MB over the crossbar at 260 x 8192^2 as at 512 padded rows, Nsight Compute) and they load one L2 slice
#: (87.8% of its peak against 46% padded; docs/performance.md "Partial M tiles"). The 256 x 128 tile's 1 x 2 cluster
#: multicasts the A tile: half as many such requests. Fitted on call 2 (132..1030 rows x 8192^2, 28672 x 4096, 4096^2,
#: 7168 x 2048); call 3 (other rows and shapes) found it 0.83-1.00x at 22 of 64 where the 256-row tile's waves cost
#: more (650 x 6144 x 4096: 2 waves of 2-CTA clusters, 1 nearly empty), hence wave_factor 1.0: then 1.08-1.40x at the
#: 12 points of call 2 and 0.99-1.38x at call 3's 32 it moves (geometric mean 1.19x); call 4, neither's rows nor
#: shapes, 24 moved, each
#: 1.14-1.42x faster and the fastest of the three tiles (140 x 13824 x 5120 51.0 -> 39.9 us, 655 x 22016 x 4096
#: 129.4 -> 91.3, 910 x 12288 x 4096 90.0 -> 66.9). Whole-tile M (the layers' padded rows) never meets the rule.
PARTIAL: Dict[int, List[PartialRule]] = {90: [PartialRule(129, 1024, (_T64, _T128), _T256, 0.75, 100, 1.0)]}


@dataclass(frozen=True)
class SplitRow:
    """A band of problems that takes another kernel than the SELECTION / NARROW tile: min_m <= M <= max_m and
    min_n <= N <= max_n, for the input types listed, take `choice`: a stream-K / split-K kernel (for problems
    with few output tiles, where a data-parallel tile leaves SMs idle) or another data-parallel tile. Rows are matched in order; they do not depend on K (the WAVES rules do:
    plans are keyed by M, N and K, ops/gemm.py `_plans` and the C++ fast path's PlanKey). `min_n` keeps small layers (a few tiles of little
    work, where a split's fixed cost would not pay) on the data-parallel tiles."""
    max_m: int
    max_n: int
    a_dtypes: Tuple[str, ...]
    choice: TileChoice
    min_m: int = 1
    min_n: int = 1024


#: Stream-K / split-K candidates (CUTLASS's SM90 tile schedulers, cooperative schedule only). Measured on the
#: H100 (tools/results/h100-2026-11-23/session7/call3/{decode,mid}/tiles.md, one process, bf16 out + bias):
#: none beat the data-parallel tiles of SELECTION / NARROW. Decode int8 16x8192x8192: 128x64 coop 37.8 us, its
#: stream-K 45.3, split-K 2 / 4 44.2 / 51.8, 128x128 stream-K 39.5 (the 64x64 pingpong tile: 28.5 us, session 6);
#: 1x4096x14336: split-K 2 37.2 (int8) / 35.3 (e4m3), the best split, vs ~34 us data-parallel; fp8 512x4096x4096:
#: 128x128 pingpong c1x2 18.6 us, every stream-K / split-K 21.9-25.7; 512x4096x14336: 50.7 vs 50.2-57.2. The
#: 128-row tile the cooperative schedule needs and the reduction's workspace traffic cost more than the idle
#: SMs they recover. So SPLIT has no stream-K / split-K rows: the schedulers stay available as configs
#: (KernelConfig.scheduler, `tools/benchmark.py tiles --choices .../streamk`), chosen by no call.
#: Its one row is a data-parallel tile: e4m3 at M <= 64 (M 9..16 and above, where the decode GEMV does not take
#: e4m3 at N > 4096) on wide layers, N >= 12288, takes 64x128x256 pingpong instead of 64x64x128
#: (tools/results/h100-2026-11-26/session12/call10/tiles/tiles.md, one process, us 64x64 / 64x128x256 /
#: torch._scaled_mm: 16x14336x4096 26.6 / 25.6 / 27.8, 16x28672x8192 89.4 / 83.9 / 96.1, 32x14336x4096 27.0 /
#: 26.2, 32x28672x8192 90.2 / 85.8, 64x14336x4096 27.1 / 26.5, 64x28672x8192 89.8 / 86.3; at N = 8192 a tie,
#: 28.9 / 28.9; at N = 4096-5120 the 64x64 tile leads, e.g. 16x4096x14336 31.8 / 35.1).
DECODE_STREAMK = TileChoice((128, 64, 128), (1, 1, 1), "cooperative", scheduler="streamk")
NARROW_STREAMK = TileChoice((128, 128, 128), (1, 1, 1), "cooperative", scheduler="streamk")
FP8_WIDE = TileChoice((64, 128, 256), (1, 1, 1), "pingpong")
SPLIT: Dict[int, List[SplitRow]] = {90: [SplitRow(64, 1 << 31, ("e4m3",), FP8_WIDE, min_n=12288)]}


@dataclass(frozen=True)
class GemvRow:
    """Calls the W8A8 decode GEMV (kernels/gemv.py) takes instead of a CUTLASS tile: M <= max_m and
    min_n <= N <= max_n, for the input types listed, epilogue variants of gemv.VARIANTS without an activation."""
    max_m: int
    a_dtypes: Tuple[str, ...]
    min_n: int = 1
    max_n: int = 1 << 31


#: Per SM. SM90: the GEMV against the 64x64 pingpong tile in one process on the H100 (`python tools/benchmark.py
#: decode`, tools/results/h100-2026-11-24/session10/call2/bd/decode.md, us GEMV / tile): int8 at every M <= 16, e.g.
#: 16x8192x8192 27.2 / 28.6, 1x4096x14336 24.9 / 34.5, 16x14336x4096 24.5 / 29.1, 1x4096x4096 9.3 / 12.9; e4m3
#: at M <= 8 (1x8192x8192 28.4 / 28.8, 8x4096x14336 25.6 / 33.4), but at M 9..16 only up to N = 4096
#: (16x4096x14336 26.1 / 32.1; 16x8192x8192 30.0 / 28.7 and 16x14336x4096 27.1 / 26.7 favour the tile: the e4m3
#: mma.sync of two activation tiles costs more issue slots than the int8 one). Session 15 gave M 9..16 4 chunks per
#: step (gemv_w8a8.cu step_of; session15/call6/probe_plain_gemv.log: e4m3 16x8192x8192 27.9 -> 26.6 us,
#: 16x14336x4096 24.9 -> 24.0, 16x28672x4096 47.1 -> 42.4), so e4m3 takes it at every N too; the GEMV against the
#: tile in one process: session15/call7/decode.md. SM80 is not measured: no rows.
GEMV: Dict[int, List[GemvRow]] = {90: [GemvRow(16, ("int8", "e4m3"))]}


def gemv_serves(sm: int, m: int, n: int, a_dtype: str, variant: str, activation: str = "none") -> bool:
    """Whether an M x N call of `a_dtype` inputs with this epilogue goes to the decode GEMV on `sm`."""
    if activation != "none" or variant not in GEMV_VARIANTS or not 1 <= m <= GEMV_MAX_M:
        return False
    return any(m <= row.max_m and row.min_n <= n <= row.max_n and a_dtype in row.a_dtypes for row in GEMV.get(sm, ()))


def split_choice(sm: int, m: int, n: int, a_dtype: str) -> Optional[TileChoice]:
    """The SPLIT row's choice for an M x N problem of `a_dtype` inputs, or None (N = 0: unknown, none)."""
    if n <= 0:
        return None
    for row in SPLIT.get(sm, ()):
        if row.min_m <= m <= row.max_m and row.min_n <= n <= row.max_n and a_dtype in row.a_dtypes:
            return row.choice
    return None


def choose_tile(sm: int, m: int, n: int = 0, a_dtype: str = "", k: int = 0) -> TileChoice:
    """The tile for an M x N x K problem: a SPLIT row's kernel when one matches (only with N and the input type
    known); else the first SELECTION row whose max_m >= M, and for the last row the NARROW
    tile when the row's tile would leave too few CTAs, for the others a WAVES rule's larger tile where its waves cost
    less, then a PARTIAL rule's tile where M leaves the last tile mostly empty (n = 0 / k = 0: unknown, no such
    check)."""
    split = split_choice(sm, m, n, a_dtype)
    if split is not None:
        return split
    for max_m, choice in SELECTION[sm]:
        if max_m is None or m <= max_m:
            narrow = NARROW.get(sm)
            if max_m is None and narrow is not None and n > 0 and ctas(choice, m, n) < narrow[0]:
                return partial_choice(PARTIAL.get(sm, ()), WAVE_SMS.get(sm, 132), narrow[1], m, n)
            choice = wave_choice(WAVES.get(sm, ()), WAVE_SMS.get(sm, 132), choice, m, n, k)
            return partial_choice(PARTIAL.get(sm, ()), WAVE_SMS.get(sm, 132), choice, m, n)
    raise AssertionError("SELECTION rows must end with an unbounded row")


def table_tiles(sm: int) -> List[TileChoice]:
    """The distinct tiles choose_tile can return for `sm`, in table order (NARROW's, the WAVES and PARTIAL rules'
    last)."""
    tiles: List[TileChoice] = []
    extra = ([NARROW[sm][1]] if sm in NARROW else []) + [r.large for r in WAVES.get(sm, ())] \
        + [r.large for r in PARTIAL.get(sm, ())]
    for choice in [c for _, c in SELECTION[sm]] + extra:
        if choice not in tiles:
            tiles.append(choice)
    return tiles


def make_config(sm: int, variant: str, out_dtype: str, choice: TileChoice, *, a_dtype: str = "int8",
                scale_a: str = "token", scale_b: str = "channel", activation: str = "none") -> KernelConfig:
    """The kernel of `choice`; an activation changes the epilogue only, never the tile (the selection
    table and autotuning measure the plain variant)."""
    return KernelConfig(sm=sm, a_dtype=a_dtype, out_dtype=out_dtype, variant=variant, activation=activation,
                        scale_a=scale_a, scale_b=scale_b, tile=choice.tile, cluster=choice.cluster,
                        schedule=choice.schedule, stages=choice.stages, scheduler=choice.scheduler,
                        splits=choice.splits)


#: Input dtypes with a default kernel set, per SM; fp8 takes the symmetric (non-azp) epilogues only.
INPUT_DTYPES_BY_SM = {90: ("int8", "e4m3"), 80: ("int8",), 89: ("e4m3",)}
FP8_VARIANTS = ("scaled", "scaled_bias")
#: (scale_a, scale_b) kinds built per input dtype. Dynamic per-token x per-channel serves every call
#: (SM90 broadcasts a per-tensor scale in its epilogue; SM80 expands it to a vector, copy kernels); the second pair is the
#: common static scheme, built so that it needs no broadcast: int8 static activations with
#: per-channel weights (SmoothQuant-style W8A8), fp8 per-tensor checkpoints.
SCALE_KINDS = {"int8": (("token", "channel"), ("tensor", "channel")),
               "e4m3": (("token", "channel"), ("tensor", "tensor"))}


def default_configs(sm: int, variants=VARIANTS) -> List[KernelConfig]:
    """The default kernel set for `sm`: every variant x output dtype x tile of the table (fp8: the
    scaled variants) x the scale kinds of SCALE_KINDS. No activation kernels: those (4 activations x
    every variant and scale kind) are built on first use, or ahead of time with
    `tools/generate_kernels.py --activation NAME --compile --all`."""
    if sm not in SELECTION:
        raise ValueError(f"no default kernel set for SM{sm}; known: {DEFAULT_SMS}")
    tiles = table_tiles(sm)
    configs = set()
    for a_dtype in INPUT_DTYPES_BY_SM[sm]:
        for v in variants:
            if a_dtype != "int8" and v not in FP8_VARIANTS:
                continue
            configs |= {make_config(sm, v, o, t, a_dtype=a_dtype, scale_a=sa, scale_b=sb)
                        for o in OUTPUT_DTYPES for t in tiles for sa, sb in SCALE_KINDS[a_dtype]}
    configs |= set(split_configs(sm, variants))
    return sorted(configs, key=lambda c: c.name)


#: The part of the SPLIT rows' kernels in the default set (generated and committed): the common call only,
#: bf16 out, per-token x per-channel, the plain, bias and (int8) bias-free per-token zero-point epilogues (2
#: kernels on SM90 today: the e4m3 row's plain and bias ones). Other calls those rows select (fp16 out, per-tensor scales, the other zero-point
#: epilogues, activations) are built on first use, like activation kernels; none is in the prebuilt set.
SPLIT_VARIANTS = ("scaled", "scaled_bias", "scaled_azp_per_token_nobias")


def split_configs(sm: int, variants=VARIANTS) -> List[KernelConfig]:
    """The SPLIT rows' kernels of the default set (see SPLIT_VARIANTS), in name order."""
    configs = set()
    for row in SPLIT.get(sm, ()):
        for a_dtype in row.a_dtypes:
            for v in variants:
                if v in SPLIT_VARIANTS and (a_dtype == "int8" or v in FP8_VARIANTS):
                    configs.add(make_config(sm, v, "bf16", row.choice, a_dtype=a_dtype))
    return sorted(configs, key=lambda c: c.name)


#: The part of the default set built ahead of time (`tools/generate_kernels.py --compile`, the README's
#: setup command, `tools/gpu_session.sh KERNELS=prebuilt`): what the common call takes. bf16 output;
#: dynamic per-token x per-channel scales (the nn layers' static schemes pass per-row scales too);
#: every tile of the table; the plain, bias and per-token-zero-point epilogues (fp8: plain and bias).
#: The per-token zero-point one is the bias-free kernel: LLM linear layers (Llama, Mistral, ...) have no
#: bias, and a zero-point call without a bias takes it. SM90: 20 kernels (four tiles since session 50), two waves of
#: nvcc on 16 cores.
#: The rest of the default set (fp16 output, the per-tensor scale kernels, the zero-point epilogues with
#: a bias, the per-tensor zero-point ones) is generated too and built on first use (announced), or
#: ahead of time with `--compile --all`.
PREBUILT_OUT_DTYPES = ("bf16",)
PREBUILT_SCALE_KINDS = (("token", "channel"),)
PREBUILT_VARIANTS = ("scaled", "scaled_bias", "scaled_azp_per_token_nobias")


def prebuilt_configs(sm: int, variants=VARIANTS) -> List[KernelConfig]:
    """The kernels of `default_configs(sm, variants)` that are built ahead of time (see above): every SELECTION row's
    tile (on SM90 the NARROW and WAVES tiles are rows' tiles too)."""
    rows = {(c.tile, c.cluster, c.schedule, c.stages) for _, c in SELECTION[sm]}
    return [c for c in default_configs(sm, variants)
            if c.out_dtype in PREBUILT_OUT_DTYPES and (c.scale_a, c.scale_b) in PREBUILT_SCALE_KINDS
            and c.variant in PREBUILT_VARIANTS and (c.tile, c.cluster, c.schedule, c.stages) in rows]


def in_default_set(cfg: KernelConfig) -> bool:
    return cfg.sm in SELECTION and cfg.activation == "none" and cfg in set(default_configs(cfg.sm, (cfg.variant,)))


#: Per SM: (least M, most M) of the calls whose activation is padded to whole M tiles (`padded_rows`). SM90's
#: TMA kernels lose 1.1-1.7x when their last M tile is partly out of bounds: the same kernel on operands padded
#: with zero rows to the tile's M (x the cluster's) took 39.5 -> 32.0 us at 200 x 8192^2 (int8; fp8 40.7 -> 31.0),
#: 72.0 -> 42.6 at 260 x 8192^2, 102 -> 81 at 520 x 8192^2, and within 6% from ~1000 rows
#: (tools/results/h200-2026-11-29/session49/call4, docs/performance.md "Partial M tiles"). The layer call padded by
#: this rule against unpadded, both from CUDA graphs (session 50, tools/results/h200-2026-11-29/session50/call1,
#: probe/pad_layer.py, Int8Linear / Fp8Linear at 17..1000 rows x 8192^2, 28672 x 4096, 4096^2, 7168 x 2048, bits
#: equal): 1.0-1.74x faster (geometric mean 1.19x; 132 x 28672 x 4096 91.0 -> 52.4 us, 17 x 4096^2 11.4 -> 7.6), within
#: noise where the last tile is nearly full (0.95-1.04x at 448, 700 and 1000 rows). SM80's cp.async kernels predicate
#: their loads instead: no rows (not measured).
PAD_ROWS: Dict[int, Tuple[int, int]] = {90: (17, 1023)}


def whole_tile_rows(m: int, unit_of: Callable[[int], int]) -> int:
    """Rows >= m that are a whole number of `unit_of(rows)` (the M tile times the cluster's M of the kernel
    those rows select): a fixed point, as a different tile at the rounded M moves the unit (this family's padded_rows,
    kernels/blockwise_heuristics.py padded_rows)."""
    rows = m
    for _ in range(4):
        unit = unit_of(rows)
        padded = -(-rows // unit) * unit
        if padded == rows:
            return rows
        rows = padded
    return rows


def padded_rows(sm: int, m: int, n: int, a_dtype: str, variant: str = "scaled", activation: str = "none",
                k: int = 0) -> int:
    """The M an M x N x K GEMM of `a_dtype` inputs runs on: M rounded up to the M tile (times the cluster's M) of the
    kernel choose_tile gives for the rounded M, inside PAD_ROWS[sm]; else M itself (the decode GEMV, large M, SM80).
    The caller quantizes into that many rows (zero past M) and keeps the first M rows of the output."""
    low, high = PAD_ROWS.get(sm, (1, 0))
    if not low <= m <= high or gemv_serves(sm, m, n, a_dtype, variant, activation):
        return m
    return whole_tile_rows(m, lambda rows: m_unit(choose_tile(sm, rows, n, a_dtype, k)))


#: Per SM: when `scaled_mm` / `scaled_mm_azp` copy a caller's rows into padded_rows' whole tiles themselves (one pad2d
#: launch, runtime/rowpad.py) instead of running the kernel on them as they are (`scaled_mm_blockwise`:
#: blockwise_heuristics.OP_PAD_E4M3). Session 62 (H200, tools/results/h200-2026-11-30/session62) found 1.1-1.7x where
#: the unpadded kernel's last unit was mostly empty, at a copy cost of 3.5-4.3 us (median), and padded only where that
#: unit was >= 3/4 empty and N * K > 2^24. Session 63 (tools/results/h200-2026-11-30/session63) launched the copy as a
#: programmatic dependent (median cost 1.9-2.5 us over the caller's own padding, 3.1-3.3 launched plainly, same
#: process) and fitted this rule (probe/fit_fetch.py: the grid's best on call 2's set A, 12 rows x 13 shapes, int8 and
#: e4m3, CUDA graphs of 20 calls in alternation): pad where the last unit is >= 40% empty and its out-of-bounds fetch
#: (rows x K x column units) is >= 10M elements and >= 2x the bytes copied. On set A 1.093x on geometric mean over the
#: 312 padded-row points (0.92x at worst; the session-62 rule 1.057x; padding exactly where it won 1.102x); out of
#: sample, set B (12 other rows x 8 other shapes, 192 points) 1.033x, 0.91x at worst (session 62's rule 1.002x, best
#: possible 1.040x), and set C (call 3, the final code, 12 rows x 8 more shapes) 1.090x / 1.077x int8 / e4m3 over 96
#: calls each (1.047x / 1.046x; best possible 1.109x / 1.096x), the 53 padded int8 calls 1.17x (0.92-1.71x). The losses
#: left (sets B and C): 0.91-0.96x at 820-950 rows with K >= 7168, the copy 4-23 us, and at 24 fp8 rows. `out=` calls
#: follow the same plan at the same cost since session 64 (the kernel stores the caller's M rows into `out`, cg_launch's
#: m_padded; until then a second copy put them there, set C 1.045x, 0.84x at worst): on set C again, session64/call2,
#: the rule's 53 int8 calls 1.196x / 1.197x without / with out= (0.91-1.71x / 0.94-1.71x), e4m3 1.158x / 1.156x.
OP_PAD: Dict[int, OpPadRule] = {90: OpPadRule(0.4, min_fetch=10_000_000, fetch_per_copied=2.0)}


def op_padded_rows(sm: int, m: int, n: int, a_dtype: str, variant: str = "scaled", activation: str = "none",
                   k: int = 0) -> int:
    """The rows an op runs a caller's M x N x K call on: padded_rows where OP_PAD says the copy pays (the last M unit
    of the kernel choose_tile gives the unpadded call mostly empty and fetching far more out-of-bounds rows than the
    copy moves), else M."""
    rule = OP_PAD.get(sm)
    rows = padded_rows(sm, m, n, a_dtype, variant, activation, k)
    if rule is None or rows == m:
        return m
    choice = choose_tile(sm, m, n, a_dtype, k)
    if not rule.pads(m, m_unit(choice), rows, n, k, column_units(choice.tile, choice.cluster, n)):
        return m
    return rows