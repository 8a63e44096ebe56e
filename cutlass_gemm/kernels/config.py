"""One GEMM kernel, described by a frozen, validated configuration with a stable name.

The name is the kernel's file name in `generated/` and the stem of its cache entry; `from_name`
parses it back, so a name alone identifies a kernel. Field order is fixed and is the name's order.
"""
from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass
from typing import NoReturn, Tuple

from ..errors import InvalidArgumentError

#: Bumped whenever the emitted source for an unchanged config would change (4: SM90 per-token / per-channel kernels
#: launched as programmatic dependents, emit.programmatic_launch; 5: the per-tensor scale kinds too, their scalars
#: read after the mainloop, emit_evt.late_scalars; 6: stream-K / split-K too, their workspace cleared by a programmatic
#: kernel, emit_streamk; 7: cg_launch's m_padded, the SM90 launchers computing padded rows and storing m, GEMM launcher
#: ABI 4).
GENERATOR_VERSION = "7"

SUPPORTED_SMS = (80, 89, 90)
INPUT_DTYPES = ("int8", "e4m3")
OUTPUT_DTYPES = ("bf16", "f16")
VARIANTS = ("scaled", "scaled_bias", "scaled_azp", "scaled_azp_per_token", "scaled_azp_nobias",
            "scaled_azp_per_token_nobias")
#: Activations applied after scale + bias, in float32, inside the epilogue (kernels/activations.py).
#: "none" adds nothing to the kernel name, so kernels without an activation keep their names.
ACTIVATIONS = ("none", "relu", "relu6", "gelu_tanh", "silu")
SCALE_A_KINDS = ("tensor", "token")
SCALE_B_KINDS = ("tensor", "channel")
SM90_SCHEDULES = ("pingpong", "cooperative")
SM80_SCHEDULES = ("multistage",)
#: SM90 tile schedulers. "persistent" (CUTLASS's default persistent data-parallel scheduler) adds nothing to
#: the name, so the names, sources and cache keys of the kernels made before the field existed are unchanged.
#: "streamk" and "splitk" run CUTLASS's SM90 stream-K scheduler (the cooperative kernel only): "streamk" asks for
#: its stream-K decomposition (DecompositionMode::StreamK: the K iterations of the last two waves' tiles spread
#: evenly over all SMs, earlier full waves data-parallel), "splitk" forces a split-K decomposition into `splits`
#: K slices (name suffix `_splitk<splits>`; CUTLASS lowers the count when K has fewer 128-deep tiles).
#: Both reduce partial tiles through a workspace in a fixed order (ReductionMode::Deterministic).
SCHEDULERS = ("persistent", "streamk", "splitk")
MAX_SPLITS = 16

INPUT_BITS = {"int8": 8, "e4m3": 8}
OUTPUT_BITS = {"bf16": 16, "f16": 16}


def _is_pow2(x: int) -> bool:
    return x > 0 and (x & (x - 1)) == 0


class ConfigChecks:
    """Construction and validation every family's frozen dataclass config shares (KernelConfig and the template
    families' configs): `tile` and `cluster` arrive as lists from JSON manifests and become int tuples before
    `validate()` runs, so equality, hashing and names hold; a bad field raises InvalidArgumentError (a ValueError,
    so callers that catch ValueError still do) naming "<Class>.<field>"."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "tile", tuple(int(v) for v in self.tile))
        object.__setattr__(self, "cluster", tuple(int(v) for v in self.cluster))
        self.validate()

    def validate(self) -> None:
        """The family's rules: `bad(field, why)` unless CUTLASS (or this library's template) can build the kernel."""
        raise NotImplementedError

    def bad(self, field: str, why: str) -> NoReturn:
        raise InvalidArgumentError(f"{type(self).__name__}.{field}", f"{why} (config {self!r})")

    def check_one_of(self, field: str, allowed) -> None:
        """`bad(field, ...)` unless the field's value is in `allowed`."""
        value = getattr(self, field)
        if value not in allowed:
            self.bad(field, f"must be one of {allowed}, got {value!r}")


@dataclass(frozen=True)
class KernelConfig(ConfigChecks):
    """A fused quantized GEMM: D(M,N) = epilogue(A(M,K) row-major @ B(K,N) column-major).

    `tile` is the tile computed by one CTA (threadblock), `cluster` the SM90 thread-block cluster
    (always (1,1,1) before SM90). `stages` is the mainloop pipeline depth; 0 lets CUTLASS pick the
    most that fit in shared memory (SM90 only). Alignments are in elements of A/B and of D.
    """

    #: kernels/families.py row (a class attribute, not a field: not in the name, the dict or equality)
    family = "gemm"

    sm: int
    a_dtype: str = "int8"
    out_dtype: str = "bf16"
    variant: str = "scaled_bias"
    activation: str = "none"
    scale_a: str = "token"
    scale_b: str = "channel"
    tile: Tuple[int, int, int] = (128, 128, 128)
    cluster: Tuple[int, int, int] = (1, 1, 1)
    schedule: str = "pingpong"
    stages: int = 0
    align_a: int = 16
    align_b: int = 16
    align_out: int = 8
    scheduler: str = "persistent"
    splits: int = 1

    # ----------------------------------------------------------------- validation
    def validate(self) -> None:
        bad = self.bad
        self.check_one_of("sm", SUPPORTED_SMS)
        self.check_one_of("a_dtype", INPUT_DTYPES)
        if self.a_dtype == "e4m3" and self.sm < 89:
            bad("a_dtype", f"fp8 e4m3 needs SM89 or newer, got sm={self.sm}")
        for field, allowed in (("out_dtype", OUTPUT_DTYPES), ("variant", VARIANTS), ("activation", ACTIVATIONS)):
            self.check_one_of(field, allowed)
        if self.variant.startswith("scaled_azp") and self.a_dtype != "int8":
            bad("variant", "zero-point (azp) epilogues take int8 activations only")
        self.check_one_of("scale_a", SCALE_A_KINDS)
        self.check_one_of("scale_b", SCALE_B_KINDS)
        if len(self.tile) != 3 or any(v <= 0 for v in self.tile):
            bad("tile", f"must be three positive ints, got {self.tile}")
        if len(self.cluster) != 3 or any(not _is_pow2(v) for v in self.cluster):
            bad("cluster", f"must be three powers of two, got {self.cluster}")
        for field, bits in (("align_a", INPUT_BITS[self.a_dtype]), ("align_b", INPUT_BITS[self.a_dtype]),
                            ("align_out", OUTPUT_BITS[self.out_dtype])):
            v = getattr(self, field)
            if not _is_pow2(v):
                bad(field, f"must be a power of two, got {v}")
            if v * bits > 128:
                bad(field, f"{v} elements of {bits} bits exceed a 128-bit access")
        tm, tn, tk = self.tile
        k_bytes = tk * INPUT_BITS[self.a_dtype] // 8
        if self.sm >= 90:
            if self.schedule not in SM90_SCHEDULES:
                bad("schedule", f"SM90 kernels take {SM90_SCHEDULES}, got {self.schedule!r}")
            # TMA moves 16-byte rows; the epilogue's TMA store needs 16-byte aligned D rows too.
            if self.align_a * INPUT_BITS[self.a_dtype] != 128 or self.align_b * INPUT_BITS[self.a_dtype] != 128:
                bad("align_a", "SM90 TMA kernels need 16-byte aligned A and B (16 int8/fp8 elements)")
            if self.align_out * OUTPUT_BITS[self.out_dtype] != 128:
                bad("align_out", "SM90 TMA epilogues need 16-byte aligned D (8 bf16/f16 elements)")
            need_m = 128 if self.schedule == "cooperative" else 64
            if tm % need_m:
                bad("tile", f"{self.schedule} needs tile M a multiple of {need_m}, got {tm}")
            if tn % 16 or tn > 256:
                bad("tile", f"tile N must be a multiple of 16 up to 256, got {tn}")
            if k_bytes not in (64, 128, 256):
                bad("tile", f"tile K must span 64, 128 or 256 bytes, got {tk} elements")
            if self.cluster[2] != 1 or self.cluster[0] * self.cluster[1] > 8:
                bad("cluster", f"SM90 clusters are (m, n, 1) with m*n <= 8, got {self.cluster}")
            if self.stages not in (0,) and not (2 <= self.stages <= 8):
                bad("stages", f"must be 0 (auto) or 2..8, got {self.stages}")
        if self.scheduler not in SCHEDULERS:
            bad("scheduler", f"must be one of {SCHEDULERS}, got {self.scheduler!r}")
        if self.scheduler != "persistent" and (self.sm < 90 or self.schedule != "cooperative"):
            # CUTLASS's pingpong kernel static_asserts against the stream-K scheduler; SM80 has no such scheduler here
            bad("scheduler", f"{self.scheduler!r} runs CUTLASS's SM90 stream-K scheduler, which takes the cooperative "
                             f"schedule only (got sm={self.sm}, schedule={self.schedule!r})")
        if self.scheduler == "splitk" and not (2 <= self.splits <= MAX_SPLITS):
            bad("splits", f"splitk needs 2..{MAX_SPLITS} splits, got {self.splits}")
        if self.scheduler != "splitk" and self.splits != 1:
            bad("splits", f"only the splitk scheduler takes a split count (1 otherwise), got {self.splits}")
        if self.sm < 90:
            if self.schedule not in SM80_SCHEDULES:
                bad("schedule", f"SM{self.sm} kernels take {SM80_SCHEDULES}, got {self.schedule!r}")
            if self.cluster != (1, 1, 1):
                bad("cluster", f"clusters need SM90, got {self.cluster} for sm={self.sm}")
            if not (2 <= self.stages <= 10):
                bad("stages", f"SM{self.sm} multistage kernels need 2..10 stages, got {self.stages}")
            if tm % 32 or tn % 32 or k_bytes not in (64, 128):
                bad("tile", f"SM{self.sm} tiles need M, N multiples of 32 and K of 64 or 128 bytes, got {self.tile}")

    # ----------------------------------------------------------------- naming
    @property
    def name(self) -> str:
        t = "x".join(map(str, self.tile))
        c = "x".join(map(str, self.cluster))
        act = "" if self.activation == "none" else f"_{self.activation}"
        return (f"sm{self.sm}_{self.a_dtype}_{self.out_dtype}_{self.variant}{act}_{self.scale_a}_{self.scale_b}"
                f"_t{t}_c{c}_{self.schedule}{self.scheduler_tag}_s{self.stages}"
                f"_a{self.align_a}x{self.align_b}x{self.align_out}")

    @property
    def scheduler_tag(self) -> str:
        """The name's scheduler part: "" (persistent), "_streamk" or "_splitk<splits>"."""
        if self.scheduler == "persistent":
            return ""
        return "_streamk" if self.scheduler == "streamk" else f"_splitk{self.splits}"

    # Variants and activations are spelled out (longest first) so that an activation after the variant
    # ("scaled_bias_gelu_tanh_token") parses unambiguously.
    _NAME_RE = re.compile(
        r"^sm(?P<sm>\d+)_(?P<a_dtype>[a-z0-9]+)_(?P<out_dtype>[a-z0-9]+)"
        r"_(?P<variant>" + "|".join(sorted(VARIANTS, key=len, reverse=True)) + ")"
        r"(?:_(?P<activation>" + "|".join(sorted(ACTIVATIONS[1:], key=len, reverse=True)) + "))?"
        r"_(?P<scale_a>tensor|token)_(?P<scale_b>tensor|channel)"
        r"_t(?P<tile>\d+x\d+x\d+)_c(?P<cluster>\d+x\d+x\d+)_(?P<schedule>[a-z]+)"
        r"(?:_(?P<scheduler>streamk|splitk)(?P<splits>\d+)?)?_s(?P<stages>\d+)"
        r"_a(?P<align_a>\d+)x(?P<align_b>\d+)x(?P<align_out>\d+)$")

    @classmethod
    def from_name(cls, name: str) -> "KernelConfig":
        m = cls._NAME_RE.match(name)
        if not m:
            raise ValueError(f"not a cutlass_gemm kernel name: {name!r}")
        g = m.groupdict()
        # "_streamk" takes no count and "_splitk" needs one: anything else does not round-trip, so it is no name
        if (g["scheduler"] == "streamk") == (g["splits"] is not None) and g["scheduler"] is not None:
            raise ValueError(f"not a cutlass_gemm kernel name (scheduler part): {name!r}")
        if g["splits"] is not None and (g["splits"].startswith("0") or len(g["splits"]) > 3):
            raise ValueError(f"not a cutlass_gemm kernel name (split count): {name!r}")
        return cls(sm=int(g["sm"]), a_dtype=g["a_dtype"], out_dtype=g["out_dtype"], variant=g["variant"],
                   activation=g["activation"] or "none", scale_a=g["scale_a"], scale_b=g["scale_b"],
                   tile=tuple(int(v) for v in g["tile"].split("x")),
                   cluster=tuple(int(v) for v in g["cluster"].split("x")),
                   schedule=g["schedule"], stages=int(g["stages"]), align_a=int(g["align_a"]),
                   align_b=int(g["align_b"]), align_out=int(g["align_out"]),
                   scheduler=g["scheduler"] or "persistent", splits=int(g["splits"] or 1))

    def to_dict(self) -> dict:
        """Fields as JSON data; `activation` only when not "none" and `scheduler` / `splits` only when not
        persistent, so that the manifests and the emitted headers of the kernels made before those fields
        existed read as before (from_dict fills them)."""
        d = dataclasses.asdict(self)
        d["tile"] = list(self.tile)
        d["cluster"] = list(self.cluster)
        if self.activation == "none":
            del d["activation"]
        if self.scheduler == "persistent":
            del d["scheduler"], d["splits"]
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "KernelConfig":
        return cls(**d)

    def replace(self, **changes) -> "KernelConfig":
        return dataclasses.replace(self, **changes)

    # ----------------------------------------------------------------- caching
    def cache_key(self, *, cutlass_version: str, nvcc_version: str, flags: Tuple[str, ...],
                  source_sha256: str = "") -> str:
        """Hash of everything that changes the binary: the config, the generator, CUTLASS, nvcc,
        the compile flags (which include the target arch) and, when known, the emitted source."""
        return toolchain_key([self.name, f"gen={GENERATOR_VERSION}"], cutlass_version=cutlass_version,
                             nvcc_version=nvcc_version, sm=self.sm, flags=flags, source_sha256=source_sha256)


def toolchain_key(head, *, cutlass_version: str, nvcc_version: str, sm: int, flags: Tuple[str, ...],
                  source_sha256: str = "") -> str:
    """20 hex digits of sha256 over `head` (what names the kernel and its generator) and the toolchain:
    every kernel family's cache key."""
    parts = [*head, f"cutlass={cutlass_version}", f"nvcc={nvcc_version}", f"sm={sm}", "flags=" + " ".join(flags),
             f"src={source_sha256}"]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:20]


class TemplateConfigMixin(ConfigChecks):
    """What the hand-written template families (mixed_input, blockwise, conv2d) share, so each config
    class writes only its fields, validation and name: ConfigChecks, dict round trip, `replace`, and the cache key,
    which hashes the family tag, the name and the family's generator version (kernels/families.py)."""

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["tile"], d["cluster"] = list(self.tile), list(self.cluster)
        return d

    @classmethod
    def from_dict(cls, d: dict):
        return cls(**d)

    def replace(self, **changes):
        return dataclasses.replace(self, **changes)

    def cache_key(self, *, cutlass_version: str, nvcc_version: str, flags: Tuple[str, ...],
                  source_sha256: str = "") -> str:
        """Hash of everything that changes the binary, with a family tag (no name of another family can
        share a key)."""
        from .families import FAMILIES
        version = FAMILIES[self.family].generator_version()
        return toolchain_key([f"family={self.family}", self.name, f"gen={version}"],
                             cutlass_version=cutlass_version, nvcc_version=nvcc_version, sm=self.sm, flags=flags,
                             source_sha256=source_sha256)
