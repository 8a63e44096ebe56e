"""The SM90 weight-only (W4A16 / W8A16) large-M GEMM family: CUTLASS's mixed-input collective.

One kernel computes, for a weight prepacked in layout "cutlass_mixed_sm90_v1" (quant/prepack_mixed.py),

    out (M, N) = x (M, K) @ W^T + bias,     W[n, k] = s[n, k // g] * q[n, k] (+ zero offset),

as its transpose D^T (N, M) = W (N, K) @ x^T: the narrow weight is CUTLASS's A operand (the mixed-input
collective converts the operand that passes through registers, and only A can when the epilogue is a
TMA store; CUTLASS example 55 swaps operands the same way), x is B ((M, K) row-major = K-major B),
and the column-major D^T (N, M) is the row-major (M, N) output. The bias is per row of D^T.

What changes the binary, and so the name and cache key (fixed order, the name's order): SM, activation
dtype (= scale, zero and output dtype), weight bits, zero points (unsigned narrow type + additive zero
tensor) or not (signed narrow type), CTA tile, cluster, schedule, stages, tile scheduler (the name carries
"_streamk" only for the stream-K one, so persistent kernels keep their names). The group size is *not* a
field: the collective takes it at run time (64, 128, or K for per channel; it must be a multiple of the
tile's K, so group 32 is served by the small-M kernel and the dequantize fallback only).
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import List, Optional, Tuple

from .config import TemplateConfigMixin

#: SM80 (session 57): W8A16 per channel through CUTLASS 2's mixed-input upcast MMA (OpMultiplyAddMixedInputUpcast:
#: the int8 weight, CUTLASS's B operand, converted to the activation dtype in registers before mma.sync; x is A), the
#: per-channel scale and the bias applied in an EVT epilogue (kernels/emit_mixed80.py); the weight in layout
#: "cutlass_upcast_sm80_v1" (plain (N, K) int8, quant/prepack.py). Its tile keeps this family's order (weight side,
#: token side, K) although CUTLASS's threadblock is (tokens, weights, K) there.
MIXED_SMS = (80, 90)
#: The SM80 kernel for every M it serves (the rows above the small-M kernels): CUTLASS's SM80 f16 / bf16 x s8 list
#: offers 128 x 128 x 64 and 128 x 64 x 64 threadblocks; not measured on an SM80 GPU.
SM80_TILE = (128, 128, 64)
SM80_STAGES = 4

#: Bumped whenever the emitted source of an unchanged MixedInputConfig would change.
MIXED_GENERATOR_VERSION = "5"  # 4: persistent kernels launched as programmatic dependents; 5: stream-K too
#: The family's folder under generated/ (its own manifest: generate.py owns generated/sm<NN>/).
GENERATED_SUBDIR = "sm90_mixed"

ACT_DTYPES = ("bf16", "f16")
WEIGHT_BITS = (4, 8)
SCHEDULES = ("cooperative", "pingpong")
#: "persistent": one CTA per SM walking output tiles; "streamk": CUTLASS's SM90 stream-K scheduler, which
#: also splits the K loop of the last wave's tiles over idle SMs (few tiles: small M against few weight
#: rows), partial tiles summed in the workspace in a fixed order (cooperative schedule only).
SCHEDULERS = ("persistent", "streamk")
#: Group sizes the kernel serves besides per channel (None): multiples of the 64-element tile K.
GROUP_SIZES = (64, 128)
#: K of the CTA tile for 16-bit activations: one 128-byte TMA row of x (what the collective's
#: smem layouts and its scale pipeline are built for; example 55 uses the same) ...
TILE_K = 64
#: ... or two (half the k-iterations per output tile); a group size must be a multiple of the tile's K.
TILE_KS = (64, 128)


def _is_pow2(x: int) -> bool:
    return x > 0 and (x & (x - 1)) == 0


@dataclass(frozen=True)
class MixedInputConfig(TemplateConfigMixin):
    """One mixed-input GEMM kernel (see the module docstring). `tile` is (N-tile of the weight, M-tile of
    the tokens, K-tile): CUTLASS's (M, N, K) of the transposed problem."""

    sm: int = 90
    act_dtype: str = "bf16"
    bits: int = 4
    zero_point: bool = False
    tile: Tuple[int, int, int] = (128, 128, 64)
    cluster: Tuple[int, int, int] = (1, 1, 1)
    schedule: str = "cooperative"
    stages: int = 0
    scheduler: str = "persistent"

    #: how build.py / loader.py tell the families apart without importing every config type
    family = "mixed_input"

    @property
    def generated_subdir(self) -> str:
        """Where the committed sources and their manifest live under generated/: sm90_mixed, sm80_mixed."""
        return f"sm{self.sm}_mixed"

    def __post_init__(self):
        object.__setattr__(self, "zero_point", bool(self.zero_point))
        super().__post_init__()

    def validate(self) -> None:
        """InvalidArgumentError (a ValueError) naming the field unless the collective can build this kernel."""
        bad = self.bad
        if self.sm not in MIXED_SMS:
            bad("sm", f"the mixed-input family has kernels for {MIXED_SMS}, got {self.sm}")
        self.check_one_of("act_dtype", ACT_DTYPES)
        if self.sm == 80:
            if self.bits != 8 or self.zero_point:
                bad("bits", "the SM80 upcast kernel takes symmetric int8 weights (W8A16 per channel)")
            if (self.tile, self.cluster, self.schedule, self.scheduler) != (SM80_TILE, (1, 1, 1), "multistage",
                                                                         "persistent") or not 3 <= self.stages <= 5:
                bad("tile", f"SM80 takes tile {SM80_TILE}, no cluster, schedule 'multistage', 3..5 stages")
            return
        self.check_one_of("bits", WEIGHT_BITS)
        self.check_one_of("schedule", SCHEDULES)
        if len(self.tile) != 3 or any(v <= 0 for v in self.tile):
            bad("tile", f"must be three positive ints, got {self.tile}")
        tn, tm, tk = self.tile
        if tk not in TILE_KS:
            bad("tile", f"tile K must be one of {TILE_KS} (128 / 256 bytes of 16-bit activations), got {tk}")
        need = 128 if self.schedule == "cooperative" else 64
        if tn % need:
            bad("tile", f"{self.schedule} needs the weight-side tile (first) a multiple of {need}, got {tn}")
        if tm % 16 or tm > 256:
            bad("tile", f"the token-side tile (second) must be a multiple of 16 up to 256, got {tm}")
        if len(self.cluster) != 3 or any(not _is_pow2(v) for v in self.cluster) or self.cluster[2] != 1 \
                or self.cluster[0] * self.cluster[1] > 8:
            bad("cluster", f"SM90 clusters are (m, n, 1) powers of two with m*n <= 8, got {self.cluster}")
        if self.stages != 0 and not 2 <= self.stages <= 8:
            bad("stages", f"must be 0 (auto) or 2..8, got {self.stages}")
        self.check_one_of("scheduler", SCHEDULERS)
        if self.scheduler == "streamk" and self.schedule != "cooperative":
            bad("scheduler", "CUTLASS's SM90 stream-K scheduler runs with the cooperative schedule only")

    # ----------------------------------------------------------------- naming
    @property
    def name(self) -> str:
        """e.g. sm90_mixed_bf16_int4_sym_t128x128x64_c1x1x1_cooperative_s0 (+ "_streamk")."""
        t = "x".join(map(str, self.tile))
        c = "x".join(map(str, self.cluster))
        zp = "zp" if self.zero_point else "sym"
        sk = "" if self.scheduler == "persistent" else f"_{self.scheduler}"
        return f"sm{self.sm}_mixed_{self.act_dtype}_int{self.bits}_{zp}_t{t}_c{c}_{self.schedule}_s{self.stages}{sk}"

    _NAME_RE = re.compile(r"^sm(?P<sm>\d+)_mixed_(?P<act>bf16|f16)_int(?P<bits>\d+)_(?P<zp>sym|zp)"
                          r"_t(?P<tile>\d+x\d+x\d+)_c(?P<cluster>\d+x\d+x\d+)_(?P<schedule>[a-z]+)_s(?P<stages>\d+)"
                          r"(?:_(?P<scheduler>streamk))?$")

    @classmethod
    def from_name(cls, name: str) -> "MixedInputConfig":
        """The config `name` spells (ValueError if it is not a mixed-input kernel name)."""
        m = cls._NAME_RE.match(name)
        if not m:
            raise ValueError(f"not a cutlass_gemm mixed-input kernel name: {name!r}")
        g = m.groupdict()
        return cls(sm=int(g["sm"]), act_dtype=g["act"], bits=int(g["bits"]), zero_point=g["zp"] == "zp",
                   tile=tuple(int(v) for v in g["tile"].split("x")),
                   cluster=tuple(int(v) for v in g["cluster"].split("x")), schedule=g["schedule"],
                   stages=int(g["stages"]), scheduler=g["scheduler"] or "persistent")


# ----------------------------------------------------------------- selection (heuristics data)
#: The kernel per weight width and M (rows of x): (bits, m_max, tile, cluster, schedule, scheduler), the first row
#: of the width with m <= m_max wins (m_max None: any M). From the H100 sweep of tools/bench_mixed_sweep.py
#: (tools/results/h100-2026-11-26/session14/call2: 28 candidates, bf16 x, int4 g128 / int8 per channel, M 1..4096 at
#: 8192x8192, 28672x4096, 4096x14336): per M bucket the candidate with the least geometric-mean time over the
#: three shapes, at most five kernels per width (each is built in four formats). Small M wants stream-K (few
#: output tiles: the K loop of the last wave is split over idle SMs) and small token tiles; large M the
#: 128 x 256 tile with x multicast over a 2x1 cluster. Geometric mean over the shapes within 3.5% of the best
#: candidate's at each measured M but 128, 256 and 512 (5-10%) for int4; int8 within 3.3% up to M = 64 and from
#: M = 1024, 5-15% between.
#: Session 34 (tools/results/h100-2026-11-27/session34/call1, `--set tk128`: the rows then in use beside ten / four
#: candidates with a 128-wide K tile, M 33..2048): the int8 rows up to 256 rows take the 128-wide K tile (summed over
#: the three shapes 126.5 us against 139.8 at M = 64, 142.4 against 170.6 at 128, 209.7 against 240.7 at 256); for
#: int4 no 128-wide row beat the rows in use by more than 2-4% over the three shapes (kept), but see WIDE_N_ROWS.
SELECTION = (
    (4, 32, (128, 32, 64), (2, 1, 1), "cooperative", "streamk"),
    (4, 64, (128, 64, 64), (1, 1, 1), "cooperative", "streamk"),
    (4, 256, (128, 128, 64), (1, 1, 1), "cooperative", "streamk"),
    (4, 512, (256, 128, 64), (1, 1, 1), "cooperative", "streamk"),
    (4, None, (128, 256, 64), (2, 1, 1), "cooperative", "persistent"),
    (8, 64, (128, 64, 128), (1, 1, 1), "cooperative", "streamk"),
    (8, 256, (128, 128, 128), (1, 1, 1), "cooperative", "streamk"),
    (8, 512, (128, 128, 64), (1, 1, 1), "cooperative", "persistent"),
    (8, None, (128, 256, 64), (2, 1, 1), "cooperative", "persistent"),
)

#: Wide layers (N >= WIDE_N) take the first of these rows whose m_max admits M, else SELECTION's (same form). From
#: session34/call1 (N = 28672, K = 4096, the only wide shape measured): int4 at 33 / 48 / 64 rows 256 x 64 x 128 stream-K,
#: 38.3 / 38.7 / 38.9 us against 45.6 / 45.7 / 44.8 for the SELECTION row (2.24-2.30x bf16 `F.linear` against
#: 1.89-1.96x): its 112 tiles fill about one wave of the H100's 132 SMs with a whole K loop each and x is read once per
#: 256 weight rows (at N = 8192 the same kernel splits 32 tiles four ways and loses, 34.2 us against 29.6 at M = 64).
#: At 128 / 256 rows the larger tiles of SELECTION's next rows already win there: int4 256 x 128 stream-K 51.4 us against
#: 54.0, 128 x 256 (2x1 cluster) 84.9 against 96.1; int8 128 x 128 persistent 55.0 against 61.0, 128 x 256 88.6 against
#: 98.5. The bound keeps N / 256 at 96 tiles or more (three quarters of a wave).
WIDE_N = 24576
WIDE_N_ROWS = (
    (4, 64, (256, 64, 128), (1, 1, 1), "cooperative", "streamk"),
    (4, 128, (256, 128, 64), (1, 1, 1), "cooperative", "streamk"),
    (4, 256, (128, 256, 64), (2, 1, 1), "cooperative", "persistent"),
    (8, 64, (128, 64, 128), (1, 1, 1), "cooperative", "streamk"),
    (8, 128, (128, 128, 64), (1, 1, 1), "cooperative", "persistent"),
    (8, 256, (128, 256, 64), (2, 1, 1), "cooperative", "persistent"),
)


#: Narrow layers (N < SMALL_N output features; the sweep above measured N >= 4096) keep example 55's 128 x 128 x 64
#: cooperative tile without a cluster for every M: at the batch-1 ResNet-50 1x1 convs (N 64..2048, M 49..3136,
#: session14/call6 against session8/call6) the SELECTION rows were slower at 8 of 12 layers (geometric mean
#: 0.85x cuDNN fp16 against 1.06x), the few output tiles of a 128 x 256 tile or a stream-K split of a short K
#: loop gaining nothing there.
SMALL_N = 4096
SMALL_N_ROW = ((128, 128, 64), (1, 1, 1), "cooperative", "persistent")


def _rows(bits: int, wide: bool = False):
    return [r for r in (WIDE_N_ROWS if wide else ()) + SELECTION if r[0] == bits]


def select_config(act_dtype: str, bits: int, zero_point: bool, m: Optional[int] = None,
                  n: Optional[int] = None, k: Optional[int] = None,
                  group_size: Optional[int] = None) -> MixedInputConfig:
    """The kernel a call with `m` rows, `n` output features, reduction `k` and `group_size` (None or 0: per
    channel) takes: SMALL_N_ROW for n < SMALL_N, else the first row of WIDE_N_ROWS (n >= WIDE_N) and SELECTION
    whose m_max admits m (m None: the large-M row). A row whose tile K the group size or K is not a multiple of
    runs with the 64-wide K tile instead (same tile otherwise)."""
    rows = _rows(bits)
    if not rows:
        raise ValueError(f"no mixed-input kernel for int{bits} weights (SELECTION has none)")
    if n is not None and n < SMALL_N:
        row = (bits, None) + SMALL_N_ROW
    elif m is None:
        row = rows[-1]
    else:
        wide = _rows(bits, n is not None and n >= WIDE_N)
        row = next((r for r in wide if r[1] is None or m <= r[1]), rows[-1])
    tk = TILE_KS[-1]
    fits = (k is None or k % tk == 0) and (not group_size or group_size % tk == 0)
    return _config(act_dtype, bits, bool(zero_point), row[2:], fits)


@functools.lru_cache(maxsize=None)
def _config(act_dtype: str, bits: int, zero_point: bool, kernel: tuple, wide_k: bool = True) -> MixedInputConfig:
    # one config object per (format, table row): building and validating one is host time on every eager call
    tile, cluster, schedule, scheduler = kernel
    if not wide_k:
        tile = tile[:2] + (TILE_K,)
    return MixedInputConfig(act_dtype=act_dtype, bits=bits, zero_point=zero_point, tile=tile, cluster=cluster,
                            schedule=schedule, scheduler=scheduler)


def sm80_config(act_dtype: str) -> MixedInputConfig:
    """The SM80 W8A16 upcast kernel for activations of `act_dtype`."""
    return MixedInputConfig(sm=80, act_dtype=act_dtype, bits=8, tile=SM80_TILE, schedule="multistage",
                            stages=SM80_STAGES)


def default_configs(sm: int = 90) -> List[MixedInputConfig]:
    """Every kernel the selection can pick, in every format: 2 dtypes x sym/zp x the rows of SELECTION, WIDE_N_ROWS
    and SMALL_N_ROW, and for rows with the 128-wide K tile their 64-wide form (group 64) too (the GPU tests' and
    `tools/generate_kernels.py --mixed`'s set). SM80: the upcast kernel in both dtypes."""
    if sm == 80:
        return [sm80_config(a) for a in sorted(ACT_DTYPES)]
    out = set()
    rows = SELECTION + WIDE_N_ROWS + tuple((b, None) + SMALL_N_ROW for b in WEIGHT_BITS)
    for a in ACT_DTYPES:
        for z in (False, True):
            for bits, _, tile, cluster, schedule, scheduler in rows:
                for t in {tile, tile[:2] + (TILE_K,)}:
                    out.add(MixedInputConfig(act_dtype=a, bits=bits, zero_point=z, tile=t, cluster=cluster,
                                             schedule=schedule, scheduler=scheduler))
    return sorted(out, key=lambda c: c.name)
