"""The SM90 blockwise-scaled GEMM family: fp8 (DeepSeek-V3 style, CUTLASS's FP8 blockwise mainloop) and int8 ("s8").

int8 kernels (`ab="s8"`, kernels/cxx/blockwise_int8.hpp) compute the per-block int8 W8A8 product of
`scaled_mm_blockwise_int8` (block 128): one scale per token and one per output channel for each 128-wide K block,

    out[m, n] = act( sum_kb scale_a[m, kb] * scale_b[n, kb] * (a[m, kb-block] . b[n, kb-block]) + bias[n] )

with b the (N, K) int8 weight and scale_b (N, K // 128) row-major; the rest of this docstring describes the fp8 kernels,
whose layout rules the int8 ones share for scale_a.


One kernel computes, for fp8 e4m3 a (M, K) row-major and b (K, N) column-major (the `.t()` of a
contiguous (N, K) weight),

    out[m, n] = act( sum_kb  scale_a[m, kb] * scale_b[n // 128, kb] * (a[m, kb-block] . b[kb-block, n]) + bias[n] )

with one activation scale per token per 128-wide K group and one weight scale per 128 x 128 block.
The scales are applied inside the mainloop (collective `MainloopSm90TmaGmmaWarpSpecializedBlockwiseFP8`:
each 128-deep K block is accumulated by wgmma in float32, multiplied by its two scales and added to the
float32 accumulator), so the epilogue is alpha = 1: bias (a per-column broadcast; a null pointer reads as
zeros, one kernel serves calls with and without a bias) and the activation, in float32.

Scale layouts (`cutlass::detail::Sm90BlockwiseScaleConfig<1, 128, 128, MajorSFA, MajorSFB>`):
- scale_a (M, K // 128): "k" major is row-major, exactly what `cutlass_gemm.quantize_per_group(x, 128,
  float8_e4m3fn)` writes, so the activation quantization feeds the GEMM without a copy (the collective
  then gathers the 4-byte scales with cp.async, any M). "mn" major is the column-major view (stride
  (1, M)); the collective loads it with TMA, which needs M % 4 == 0 (16-byte scale columns).
- scale_b (ceil(N / 128), K // 128) row-major ("k" major): the natural layout of a 128 x 128 block
  quantized weight (DeepSeek-V3's `weight_scale_inv`), written once at conversion time.

What changes the binary, hence the name (fixed order): SM, output dtype, activation, scale_a major,
CTA tile, cluster, schedule, tile scheduler, stages. Tile N must be a multiple of the 128-wide weight
block (the collective's static_assert), tile K is 128 (one scale block per k-tile).

Which kernel serves which call (selection rows, scale layouts, padded rows, the committed set) is data in
kernels/blockwise_heuristics.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Tuple

from .config import ACTIVATIONS, TemplateConfigMixin

#: Bumped whenever the emitted source of an unchanged BlockwiseConfig would change.
# 12: the loop function renamed (iterate); 11: the two loops share one mainloop struct (PromotionMainloop); 10: the
# promotion mainloops as two loops and two policies (kernels/cxx); 9: the int8 per-atom mainloop
BLOCKWISE_GENERATOR_VERSION = "12"
#: The family's folder under generated/ (its own manifest).
GENERATED_SUBDIR = "sm90_blockwise"

OUT_DTYPES = ("bf16", "f16")
#: Operand types: fp8 e4m3 (weight scales per 128 x 128 block) or int8 "s8" (weight scales per channel per 128-wide
#: K block, kernels/cxx/blockwise_int8.hpp).
AB_TYPES = ("e4m3", "s8")
SFA_MAJORS = ("k", "mn")
SCHEDULES = ("cooperative", "pingpong")
SCHEDULERS = ("persistent", "streamk")
#: "cutlass": CUTLASS's mainloop as built (each k-tile's wgmmas waited for, then promoted); "overlap": the same
#: collective with k-tile k-1's promotion run while k-tile k's wgmmas execute; "atom": for tiles whose warpgroup
#: holds two 64-row wgmma atoms (256 x 128 cooperative), one atom-sized temporary promoted atom by atom
#: (kernels/cxx/blockwise_overlap.hpp).
MAINLOOPS = ("cutlass", "overlap", "atom")
#: Name suffix per mainloop (CUTLASS's has none).
_MAINLOOP_SUFFIX = {"cutlass": "", "overlap": "_ovl", "atom": "_atm"}
#: The scale granularity the family serves: per token (1) x 128 along K; weight 128 x 128 blocks.
BLOCK = 128
TILE_K = 128


def _is_pow2(x: int) -> bool:
    return x > 0 and (x & (x - 1)) == 0


@dataclass(frozen=True)
class BlockwiseConfig(TemplateConfigMixin):
    """One blockwise-scaled fp8 GEMM kernel (see the module docstring). `tile` is (M, N, K) of one CTA."""

    sm: int = 90
    ab: str = "e4m3"
    out_dtype: str = "bf16"
    activation: str = "none"
    sfa_major: str = "k"
    tile: Tuple[int, int, int] = (128, 128, 128)
    cluster: Tuple[int, int, int] = (1, 1, 1)
    schedule: str = "cooperative"
    scheduler: str = "persistent"
    stages: int = 0
    mainloop: str = "cutlass"

    #: kernels/families.py row (class attribute: not a field, not in the name or equality)
    family = "blockwise"
    #: the folder of the committed sources and their manifest under generated/
    generated_subdir = GENERATED_SUBDIR

    def validate(self) -> None:
        """InvalidArgumentError (a ValueError) naming the field unless the collective can build this kernel."""
        bad = self.bad
        if self.sm != 90:
            bad("sm", f"the FP8 blockwise (wgmma) mainloop needs SM90, got {self.sm}")
        self.check_one_of("ab", AB_TYPES)
        self.check_one_of("out_dtype", OUT_DTYPES)
        self.check_one_of("activation", ACTIVATIONS)
        self.check_one_of("sfa_major", SFA_MAJORS)
        self.check_one_of("schedule", SCHEDULES)
        self.check_one_of("scheduler", SCHEDULERS)
        if self.scheduler == "streamk" and self.schedule != "cooperative":
            bad("scheduler", "CUTLASS's SM90 stream-K scheduler runs the cooperative schedule only")
        if len(self.tile) != 3 or any(v <= 0 for v in self.tile):
            bad("tile", f"must be three positive ints, got {self.tile}")
        tm, tn, tk = self.tile
        if tk != TILE_K:
            bad("tile", f"tile K must be {TILE_K} (one scale block per k-tile), got {tk}")
        need_m = 128 if self.schedule == "cooperative" else 64
        if tm % need_m or tm > 256:
            bad("tile", f"{self.schedule} needs tile M a multiple of {need_m} up to 256, got {tm}")
        if tn % BLOCK or tn > 256:
            bad("tile", f"tile N must be a multiple of the {BLOCK}-wide weight block up to 256, got {tn}")
        if len(self.cluster) != 3 or any(not _is_pow2(v) for v in self.cluster) or self.cluster[2] != 1 \
                or self.cluster[0] * self.cluster[1] > 8:
            bad("cluster", f"SM90 clusters are (m, n, 1) powers of two with m*n <= 8, got {self.cluster}")
        if self.stages != 0 and not 2 <= self.stages <= 8:
            bad("stages", f"must be 0 (auto) or 2..8, got {self.stages}")
        self.check_one_of("mainloop", MAINLOOPS)
        if self.ab == "s8" and self.mainloop == "cutlass":
            # CUTLASS's builder takes fp8 operands only: the int8 mainloops (int32 temporaries, per-column scales)
            # are the overlapped and per-atom forms of kernels/cxx/blockwise_int8.hpp
            bad("mainloop", f"int8 operands run the int8 promotion (\"overlap\" or \"atom\"), got {self.mainloop!r}")
        if self.mainloop != "cutlass" and tn != BLOCK:
            # one weight scale per tile N: the promotion folds it into the per-row scales
            bad("mainloop", f"the {self.mainloop!r} promotion needs tile N {BLOCK} (one weight block), got {tn}")
        if self.mainloop != "cutlass" and self.scheduler == "streamk":
            bad("mainloop", f"the {self.mainloop!r} promotion has run with the persistent scheduler only "
                            "(stream-K: \"cutlass\")")
        rows_per_warpgroup = tm // 2 if self.schedule == "cooperative" else tm
        if self.mainloop == "overlap" and rows_per_warpgroup != 64:
            # a running sum and two temporaries of 128 registers each do not fit a thread
            bad("mainloop", "the overlapped promotion is for warpgroups of one 64-row atom (cooperative tile M 128 "
                            f"or pingpong 64), got {self.schedule} tile M {tm}: take \"atom\"")
        if self.mainloop == "atom" and (self.schedule, tm) != ("cooperative", 256):
            # warpgroups of two 64-row atoms; a pingpong 128-row tile has them too, but its warpgroups' mainloops
            # run in turn (the tensor cores would idle through every promotion) and it has never been built or run
            bad("mainloop", "the per-atom promotion runs the cooperative 256-row tile (two 64-row atoms per "
                            f"warpgroup), got {self.schedule} tile M {tm}")

    # ----------------------------------------------------------------- naming
    @property
    def name(self) -> str:
        """e.g. sm90_blockwise_e4m3_bf16_sfak_t128x128x128_c1x2x1_cooperative_persistent_s0
        (an activation follows the output dtype: ..._bf16_silu_sfak_...; a mainloop other than CUTLASS's ends it:
        ..._s0_ovl, ..._s0_atm)."""
        t = "x".join(map(str, self.tile))
        c = "x".join(map(str, self.cluster))
        act = "" if self.activation == "none" else f"_{self.activation}"
        return (f"sm{self.sm}_blockwise_{self.ab}_{self.out_dtype}{act}_sfa{self.sfa_major}_t{t}_c{c}"
                f"_{self.schedule}_{self.scheduler}_s{self.stages}{_MAINLOOP_SUFFIX[self.mainloop]}")

    _NAME_RE = re.compile(
        r"^sm(?P<sm>\d+)_blockwise_(?P<ab>e4m3|s8)_(?P<out>bf16|f16)"
        r"(?:_(?P<act>" + "|".join(sorted(ACTIVATIONS[1:], key=len, reverse=True)) + "))?"
        r"_sfa(?P<major>k|mn)_t(?P<tile>\d+x\d+x\d+)_c(?P<cluster>\d+x\d+x\d+)"
        r"_(?P<schedule>[a-z]+)_(?P<scheduler>[a-z]+)_s(?P<stages>\d+)(?P<ml>_ovl|_atm)?$")

    @classmethod
    def from_name(cls, name: str) -> "BlockwiseConfig":
        """The config `name` spells (ValueError if it is not a blockwise kernel name)."""
        m = cls._NAME_RE.match(name)
        if not m:
            raise ValueError(f"not a cutlass_gemm blockwise kernel name: {name!r}")
        g = m.groupdict()
        return cls(sm=int(g["sm"]), ab=g["ab"], out_dtype=g["out"], activation=g["act"] or "none", sfa_major=g["major"],
                   tile=tuple(int(v) for v in g["tile"].split("x")),
                   cluster=tuple(int(v) for v in g["cluster"].split("x")), schedule=g["schedule"],
                   scheduler=g["scheduler"], stages=int(g["stages"]),
                   mainloop={v: k for k, v in _MAINLOOP_SUFFIX.items()}[g["ml"] or ""])
