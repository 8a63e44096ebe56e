"""The W8A8 int8 conv2d family: CUTLASS's SM90 implicit-GEMM fprop (TMA im2col + WGMMA).

One kernel computes, for an NHWC int8 activation x (N, H, W, Ci) and a KRSC int8 filter w (Co, Kh, Kw, Ci),

    out (N, P, Q, Co) = act(scale_x * scale_w[co] * conv(x, w)[n, p, q, co] + bias[co])

as the implicit GEMM D (N*P*Q, Co) = im2col(x) (N*P*Q, Kh*Kw*Ci) @ w^T with int32 accumulation; the
epilogue is a hand-written EVT (kernels/emit_conv.py): scale_x is one float32 read through a pointer
(per-tensor activation scale, static or computed on the device by the dynamic quantizer: no host read),
scale_w and bias are row broadcasts along Co (a null bias pointer reads as zeros, so one kernel serves
convs with and without a bias), then the activation, then one conversion to bf16/fp16.

Output dtype "s8" (int8 activation chaining, nn/chain.py): the next conv's input quantized in this epilogue,

    q (N, P, Q, Co) = saturate(rint(act(scale_x * scale_w[co] * conv + bias[co]) * inv_scale_out))

with inv_scale_out one float32 read through a pointer (the reciprocal of the next layer's calibrated input
scale), round half to even, saturation to [-128, 127] (`cvt.rni.sat.s8.f32`), bias float32 — the library's
static quantizer's rule applied to the float32 value a bf16/fp16 kernel would round. The next conv reads it
as its int8 x, so an int8 network pays no quantization kernel and half the activation bytes between convs.

What the wheel offers, and why this is the family's shape (nvidia-cutlass 4.2):
- `cutlass_library.generator.GenerateSM90_Conv3x` lists s8 x s8 -> s32 fprop kernels, and the SM90 conv
  collective builder (`cutlass/conv/collective/builders/sm90_gmma_builder.inl`) takes int8: SM90 is served.
- The conv dispatch policy rejects the persistent schedules ("Persistent schedules not support for conv
  yet"): only `KernelImplicitTmaWarpSpecializedSm90` (one producer and one consumer warp group, one CTA per
  output tile) exists, so there is no `schedule` field; its epilogue schedule is `TmaWarpSpecialized`.
- cutlass_cppgen 4.2's `op.Conv2d` emits CUTLASS 2 (SM80) implicit GEMMs with its own epilogue functors
  only (no EVT for conv), so the kernel types are written from a template, as the mixed-input family's are.
- SM80 (session 57; A100, A10, L4, L40 and every other 8.x GPU): CUTLASS 2's implicit GEMM (mma.sync int8, cp.async
  multistage, `DefaultConv2dFprop`'s optimized NHWC iterators) has no EVT epilogue for convolutions, so the kernel is
  this library's (kernels/cxx/conv80_visitor.hpp, kernels/emit_conv80.py): CUTLASS's conv mainloop and its GEMM
  epilogue with a visitor tree (EpilogueWithVisitorCallbacks + Sm80EVT, the same nodes as the SM90 EVT), which fits
  because fprop's implicit-GEMM output over NHWC is the row-major (N*P*Q, Co) matrix a GEMM writes. Tile K is 64
  int8 (CUTLASS's int8 conv tiles), stages as listed (no auto count before SM90), no cluster.

What changes the binary, and so the name and cache key (fixed order, the name's order): SM, output
dtype, activation, CTA tile (M = output pixels, N = output channels, K = 128 int8 = one 128-byte TMA row),
cluster, stages (0: as many as fit after the epilogue's shared memory).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Tuple

from .config import TemplateConfigMixin

#: Bumped whenever the emitted source of an unchanged Conv2dConfig would change.
# 5: scalars read after the mainloop; 128-row tiles launched as programmatic dependents. 6: that stride spelled as
# launcher_text.LATE_SCALAR_STRIDE, shared with the GEMMs (same type, text only)
CONV_GENERATOR_VERSION = "6"
#: The family's folder under generated/ for SM90 (its own manifest; SM80's is sm80_conv: Conv2dConfig.generated_subdir).
GENERATED_SUBDIR = "sm90_conv"
#: SMs with conv kernels.
CONV_SMS = (80, 90)

OUT_DTYPES = ("bf16", "f16", "s8")
#: Bytes per element of each output dtype (the TMA store's 16-byte rows set Co's alignment).
OUT_BYTES = {"bf16": 2, "f16": 2, "s8": 1}
#: Activations fused after scale + bias (float32, NaN stays NaN as in torch.relu / torch.clamp).
ACTIVATIONS = ("none", "relu", "relu6")
#: K of the CTA tile: 128 int8 = one 128-byte swizzled TMA row (the generator's 4 x the 32-deep int8 wgmma), or
#: 64 (CUTLASS's int8 conv tests): a K tile runs over channels of one filter tap, so Ci = 64 (ResNet's first
#: stage) would leave half of a 128-deep tile zero-filled.
TILE_K = 128
TILE_KS = (64, 128)
#: Input channels: a multiple of the smallest tile K (64). A K tile runs over the channels of one filter tap:
#: CUTLASS tiles the filter's (C, S, R) reduction mode by the tile K, which must divide C (a Ci of 16/32/48 would
#: split a tile across taps, which cute's shape division does not define; the TMA rows alone would need 16).
CI_ALIGN = 64
#: Output channels: 16-byte rows of the bf16/fp16 TMA store (int8 output: 16 channels, `co_align`).
CO_ALIGN = 8


def co_align(out_dtype: str) -> int:
    """Output channels per 16-byte row of the TMA store for `out_dtype` (8 for bf16/fp16, 16 for s8)."""
    return 16 // OUT_BYTES[out_dtype]


def _is_pow2(x: int) -> bool:
    return x > 0 and (x & (x - 1)) == 0


@dataclass(frozen=True)
class Conv2dConfig(TemplateConfigMixin):
    """One int8 implicit-GEMM conv2d fprop kernel (see the module docstring). `tile` is (output pixels,
    output channels, reduction) per CTA; `cluster` the SM90 thread-block cluster (TMA multicast)."""

    sm: int = 90
    out_dtype: str = "bf16"
    activation: str = "none"
    tile: Tuple[int, int, int] = (128, 128, TILE_K)
    cluster: Tuple[int, int, int] = (1, 1, 1)
    stages: int = 0

    #: kernels/families.py row (class attributes: not fields, so not in the name or equality)
    family = "conv2d"

    @property
    def generated_subdir(self) -> str:
        """The folder under generated/: sm90_conv, sm80_conv."""
        return f"sm{self.sm}_conv"

    def validate(self) -> None:
        """InvalidArgumentError (a ValueError) naming the field unless this family's emitters can make this kernel."""
        bad = self.bad
        if self.sm not in CONV_SMS:
            bad("sm", f"the implicit-GEMM conv family is emitted for {CONV_SMS}, got {self.sm}")
        self.check_one_of("out_dtype", OUT_DTYPES)
        self.check_one_of("activation", ACTIVATIONS)
        if len(self.tile) != 3 or any(v <= 0 for v in self.tile):
            bad("tile", f"must be three positive ints, got {self.tile}")
        if self.sm == 80:
            return self._validate_sm80(bad)
        tm, tn, tk = self.tile
        if tk not in TILE_KS:
            bad("tile", f"tile K must be one of {TILE_KS} (int8 elements: 64/128-byte TMA rows), got {tk}")
        # One consumer warp group: wgmma is 64 rows deep, so M is 64 or 128 (its int32 accumulators:
        # tm * tn / 128 registers per thread, at most 128 here to leave room for the epilogue).
        if tm not in (64, 128):
            bad("tile", f"tile M must be 64 or 128 (one consumer warp group), got {tm}")
        if tn % 16 or not 16 <= tn <= 256 or tm * tn > 128 * 128:
            bad("tile", f"tile N must be a multiple of 16 with M*N <= 128*128, got {self.tile}")
        if len(self.cluster) != 3 or any(not _is_pow2(v) for v in self.cluster) or self.cluster[2] != 1 \
                or self.cluster[0] * self.cluster[1] > 4:
            bad("cluster", f"SM90 clusters are (m, n, 1) powers of two with m*n <= 4, got {self.cluster}")
        if self.stages != 0 and not 2 <= self.stages <= 8:
            bad("stages", f"must be 0 (auto) or 2..8, got {self.stages}")

    def _validate_sm80(self, bad) -> None:
        """CUTLASS 2's multistage implicit GEMM: four warps of (tile M / 2) x (tile N / 2), 64-deep int8 K tiles."""
        tm, tn, tk = self.tile
        if tk != 64:
            bad("tile", f"SM80 conv kernels take tile K 64 (int8), got {tk}")
        if tm not in (64, 128, 256) or tn not in (64, 128, 256) or tm * tn > 128 * 256:
            bad("tile", f"SM80 tile M and N are 64, 128 or 256 with M*N <= 128*256, got {self.tile}")
        if self.cluster != (1, 1, 1):
            bad("cluster", f"clusters need SM90, got {self.cluster}")
        if not 2 <= self.stages <= 6:
            bad("stages", f"SM80 multistage kernels take 2..6 stages (no automatic count), got {self.stages}")

    @property
    def warp_shape(self) -> Tuple[int, int, int]:
        """SM80: each of the four warps' tile (half the CTA tile in M and N, its whole K)."""
        return (self.tile[0] // 2, self.tile[1] // 2, self.tile[2])

    # ----------------------------------------------------------------- naming
    @property
    def name(self) -> str:
        """e.g. sm90_conv2d_fprop_int8_bf16_relu_t128x128x128_c1x1x1_s0 (no activation: no `_relu`)."""
        t = "x".join(map(str, self.tile))
        c = "x".join(map(str, self.cluster))
        act = "" if self.activation == "none" else f"_{self.activation}"
        return f"sm{self.sm}_conv2d_fprop_int8_{self.out_dtype}{act}_t{t}_c{c}_s{self.stages}"

    _NAME_RE = re.compile(r"^sm(?P<sm>\d+)_conv2d_fprop_int8_(?P<out>bf16|f16|s8)(?:_(?P<act>relu6|relu))?"
                          r"_t(?P<tile>\d+x\d+x\d+)_c(?P<cluster>\d+x\d+x\d+)_s(?P<stages>\d+)$")

    @classmethod
    def from_name(cls, name: str) -> "Conv2dConfig":
        """The config `name` spells (ValueError if it is not a conv2d kernel name)."""
        m = cls._NAME_RE.match(name)
        if not m:
            raise ValueError(f"not a cutlass_gemm conv2d kernel name: {name!r}")
        g = m.groupdict()
        return cls(sm=int(g["sm"]), out_dtype=g["out"], activation=g["act"] or "none",
                   tile=tuple(int(v) for v in g["tile"].split("x")),
                   cluster=tuple(int(v) for v in g["cluster"].split("x")), stages=int(g["stages"]))


# ----------------------------------------------------------------- selection (heuristics data)
#: (problem class, tile K) -> (tile M, tile N, cluster, stages). CUTLASS's own SM90 int8 conv tests use 64/128-row
#: tiles; these follow them: a narrow Co takes a 64-wide N tile (no half-empty tiles), and a small GEMM M (batch 1 at
#: 14x14 / 7x7) 64-row tiles for more CTAs. Tile K comes from Ci (`tile_k`). Stages 0 = as many as fit, one CTA per SM.
#: Measured (H200, tools/results/h200-2026-11-28/session42/call2/tiles/conv_tiles.md: ResNet-50's 3x3 convs at batch
#: 32 as the int8 chain runs them, int8 in and out, 7 to 9 tiles / stage counts / clusters each): the narrow tile at
#: tile K 64 (64->64 at 56x56, 9 K tiles) ran 25.33 us with stages 0 and 18.20 with 4 stages in clusters of 2 along M
#: (4 stages alone 18.85; 64x64 tiles 23.38 at best): a short K loop fills no deep pipeline, and 4 stages leave room
#: for a second CTA per SM. Every other class's entry was the best measured or within 0.2% of it (64x128 with 3 stages
#: 13.42 against 128x128's 13.44 at 128->128 28x28); the narrow tile at tile K 128 is not measured (no 3x3 ResNet conv
#: has Co 64 and Ci >= 128).
TILE_TABLE = {
    ("wide", 64): (128, 128, (1, 1, 1), 0), ("wide", 128): (128, 128, (1, 1, 1), 0),
    ("narrow_n", 64): (128, 64, (2, 1, 1), 4), ("narrow_n", 128): (128, 64, (1, 1, 1), 0),
    ("small_m", 64): (64, 128, (1, 1, 1), 0), ("small_m", 128): (64, 128, (1, 1, 1), 0),
}
#: SM80: the same classes over CUTLASS 2 tiles (CUTLASS's SM80 int8 conv tests and profiler list run 128 x 128 x 64 with
#: 64 x 64 warps; 64-row and 64-wide tiles for the small classes), 4 stages (64 KB of shared memory at 128 x 128,
#: two CTAs per A100 SM). Not measured on an SM80 GPU (none lent); the kernels have run on an H200 from sm_90 code
#: (tests/test_conv_int8_sm80_on_sm90_gpu.py).
TILE_TABLE_80 = {"wide": (128, 128, 4), "narrow_n": (128, 64, 4), "small_m": (64, 128, 4)}
#: GEMM M (output pixels) below which the 64-row tile is taken: fewer than ~2 waves of 128-row tiles.
SMALL_M = 4096


def problem_class(m: int, co: int) -> str:
    """TILE_TABLE's class of a conv with GEMM M = N*P*Q output pixels and `co` output channels."""
    return "narrow_n" if co <= 64 else "small_m" if m < SMALL_M else "wide"


def tile_k(ci: int) -> int:
    """128 when Ci fills 128-deep K tiles, else 64 (a K tile never spans two filter taps; Ci % 64 == 0)."""
    return 128 if ci % 128 == 0 else 64


def select_config(out_dtype: str, activation: str, m: int, co: int, ci: int, sm: int = 90) -> Conv2dConfig:
    """The kernel a conv with GEMM M = N*P*Q output pixels, `co` output and `ci` input channels takes on `sm`."""
    if sm == 80:
        tm, tn, stages = TILE_TABLE_80[problem_class(m, co)]
        return Conv2dConfig(sm=80, out_dtype=out_dtype, activation=activation, tile=(tm, tn, 64), stages=stages)
    tk = tile_k(ci)
    tm, tn, cluster, stages = TILE_TABLE[(problem_class(m, co), tk)]
    return Conv2dConfig(out_dtype=out_dtype, activation=activation, tile=(tm, tn, tk), cluster=cluster, stages=stages)


def default_configs(sm: int = 90) -> List[Conv2dConfig]:
    """Every tile-table entry x output dtype x activation (tools/generate_kernels.py --conv [--sm 80]): SM90 6 x 3 x 3
    = 54 kernels, SM80 3 x 3 x 3 = 27; the ResNet-50 set is `resnet_configs()`."""
    if sm == 80:
        return sorted((Conv2dConfig(sm=80, out_dtype=o, activation=a, tile=(tm, tn, 64), stages=st)
                       for o in OUT_DTYPES for a in ACTIVATIONS for tm, tn, st in TILE_TABLE_80.values()),
                      key=lambda c: c.name)
    return sorted((Conv2dConfig(out_dtype=o, activation=a, tile=(tm, tn, k), cluster=c, stages=st)
                   for o in OUT_DTYPES for a in ACTIVATIONS for (_, k), (tm, tn, c, st) in TILE_TABLE.items()),
                  key=lambda c: c.name)


def resnet_configs(out_dtype: str = "bf16", sm: int = 90) -> List[Conv2dConfig]:
    """The kernels a ResNet-50 in `out_dtype` can select (its convs fuse ReLU or nothing), with their int8-output
    twins for an int8 chain (nn/chain.py): 24 on SM90, 12 on SM80."""
    return [c for c in default_configs(sm) if c.out_dtype in (out_dtype, "s8") and c.activation in ("none", "relu")]
